/**
 * A Factur-X (ZUGFeRD 2.x) invoice as the engine makes it: the caller's CII XML checked
 * (cii-invoice.ts), then embedded in the PDF/A-3b as the specification names and relates it, with
 * the Factur-X XMP extension schema beside the PDF/A identification.
 */
import { PdfRenderError } from '../../errors.js';
import { maxFacturXBytes, maxFacturXTags, type FacturXFileName, type FacturXProfile } from '../../request-factur-x.js';
import { ciiInvoiceProblem } from './cii-invoice.js';
import type { XmpExtension, XmpExtensionProperty } from './xmp.js';

/** The request fields of a Factur-X invoice, as parsed. */
export interface FacturXRequest {
  facturX: string | null;
  facturXProfile: FacturXProfile | null;
  facturXFileName: FacturXFileName | null;
  /** The request's other attachments: none may take the invoice's name. */
  attachments?: readonly { name: string }[] | null;
}

/**
 * Refuse, before a page is taken or a job queued, an invoice XML that is too large (413) or not a
 * CII invoice of the profile asked for (VALIDATION_FAILED naming the field). The request's own
 * fault, so never tried again.
 */
export function checkFacturX(request: FacturXRequest): void {
  const { facturX, facturXProfile } = request;
  if (facturX === null || facturXProfile === null) return;
  const bytes = Buffer.byteLength(facturX, 'utf8');
  if (bytes > maxFacturXBytes)
    throw new PdfRenderError(
      'PAYLOAD_TOO_LARGE',
      `facturX holds ${bytes} bytes of XML, more than the limit of ${maxFacturXBytes / 1024 / 1024} MB`,
      { documentFault: true },
    );
  if (tagsUpTo(facturX, maxFacturXTags + 1) > maxFacturXTags)
    throw new PdfRenderError(
      'PAYLOAD_TOO_LARGE',
      `facturX holds more than ${maxFacturXTags} tags, the limit of what is parsed at once (about 1 300 invoice lines)`,
      { documentFault: true },
    );
  const name = invoiceFileName(request);
  const problem: { field: string; message: string } | null = request.attachments?.some(
    (attachment) => attachment.name === name,
  )
    ? {
        field: 'attachments',
        message: `"${name}" is the name the facturX invoice is embedded under: give the attachment another name`,
      }
    : ciiInvoiceProblem(facturX, facturXProfile);
  if (problem)
    throw new PdfRenderError('VALIDATION_FAILED', 'invalid request: 1 field failed validation', {
      fieldErrors: { [problem.field]: [problem.message] },
      documentFault: true,
    });
}

/** How many "<" `text` holds, counted up to `limit`: cheap however large it is. */
function tagsUpTo(text: string, limit: number): number {
  let count = 0;
  for (let at = text.indexOf('<'); at !== -1 && count < limit; at = text.indexOf('<', at + 1)) count += 1;
  return count;
}

/** The name the invoice is embedded under: the one asked for, or its profile's default. */
const invoiceFileName = ({
  facturXProfile,
  facturXFileName,
}: Pick<FacturXRequest, 'facturXProfile' | 'facturXFileName'>) =>
  facturXFileName ?? (facturXProfile === 'XRECHNUNG' ? 'xrechnung.xml' : 'factur-x.xml');

/** The XMP schema a file name belongs to: Factur-X 1.0 and ZUGFeRD 2.1+ share one; ZUGFeRD 2.0's file name had its own. */
const xmpSchemas = {
  facturX: {
    namespace: 'urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#',
    prefix: 'fx',
    schema: 'Factur-X PDFA Extension Schema',
    version: '1.0',
  },
  zugferd2: {
    namespace: 'urn:zugferd:pdfa:CrossIndustryDocument:invoice:2p0#',
    prefix: 'zf',
    schema: 'ZUGFeRD PDFA Extension Schema',
    version: '2p0',
  },
} as const;

/** What embedding a Factur-X invoice adds to the PDF/A-3b: the XML as a file, and the XMP extension schema that describes it. */
export interface FacturXEmbedding {
  file: {
    name: FacturXFileName;
    bytes: Uint8Array;
    mediaType: 'text/xml';
    relationship: 'Data' | 'Alternative';
    description: string;
  };
  extension: XmpExtension;
}

/** The file and XMP schema a request's invoice is embedded with, or null for a request without one. */
export function facturXEmbedding({
  facturX,
  facturXProfile,
  facturXFileName,
}: FacturXRequest): FacturXEmbedding | null {
  if (facturX === null || facturXProfile === null) return null;
  const name = invoiceFileName({ facturXProfile, facturXFileName });
  const schema = name === 'zugferd-invoice.xml' ? xmpSchemas.zugferd2 : xmpSchemas.facturX;
  const property = (propertyName: string, description: string, value: string): XmpExtensionProperty => ({
    name: propertyName,
    valueType: 'Text',
    category: 'external',
    description,
    value,
  });
  return {
    file: {
      name,
      bytes: Buffer.from(facturX, 'utf8'),
      mediaType: 'text/xml',
      // MINIMUM and BASIC WL carry too little to be the invoice itself (no lines): their XML is data
      // beside the PDF, which stays the invoice; from BASIC up the XML is an equal alternative to it.
      relationship: facturXProfile === 'MINIMUM' || facturXProfile === 'BASIC WL' ? 'Data' : 'Alternative',
      description: `${facturXProfile} invoice data (UN/CEFACT CII)`,
    },
    extension: {
      namespace: schema.namespace,
      prefix: schema.prefix,
      schema: schema.schema,
      properties: [
        property('DocumentFileName', 'The name of the embedded XML document', name),
        property(
          'DocumentType',
          'The type of the hybrid document in capital letters, e.g. INVOICE or ORDER',
          'INVOICE',
        ),
        property('Version', 'The actual version of the standard applying to the embedded XML document', schema.version),
        property('ConformanceLevel', 'The conformance level of the embedded XML document', facturXProfile),
      ],
    },
  };
}
