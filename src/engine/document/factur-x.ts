/**
 * A Factur-X (ZUGFeRD 2.x) invoice as the engine makes it: the caller's CII XML checked
 * (cii-invoice.ts), then embedded in the PDF/A-3b as the specification names and relates it, with
 * the Factur-X XMP extension schema beside the PDF/A identification.
 */
import { PdfRenderError } from '../../errors.js';
import { maxFacturXBytes, type FacturXFileName, type FacturXProfile } from '../../request-factur-x.js';
import { ciiInvoiceProblem } from './cii-invoice.js';

/** The request fields of a Factur-X invoice, as parsed. */
export interface FacturXRequest {
  facturX: string | null;
  facturXProfile: FacturXProfile | null;
  facturXFileName: FacturXFileName | null;
}

/**
 * Refuse, before a page is taken or a job queued, an invoice XML that is too large (413) or not a
 * CII invoice of the profile asked for (VALIDATION_FAILED naming the field). The request's own
 * fault, so never tried again.
 */
export function checkFacturX({ facturX, facturXProfile }: FacturXRequest): void {
  if (facturX === null || facturXProfile === null) return;
  const bytes = Buffer.byteLength(facturX, 'utf8');
  if (bytes > maxFacturXBytes)
    throw new PdfRenderError(
      'PAYLOAD_TOO_LARGE',
      `facturX holds ${bytes} bytes of XML, more than the limit of ${maxFacturXBytes / 1024 / 1024} MB`,
      { documentFault: true },
    );
  const problem = ciiInvoiceProblem(facturX, facturXProfile);
  if (problem)
    throw new PdfRenderError('VALIDATION_FAILED', 'invalid request: 1 field failed validation', {
      fieldErrors: { [problem.field]: [problem.message] },
      documentFault: true,
    });
}
