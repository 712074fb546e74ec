/**
 * A PDF made PDF/A-2b or -3b (ISO 19005-2 and -3, level B), as one step of the finishing update:
 * Chromium's objects checked against the rules its output could break (pdfa-rules.ts), mended where
 * that changes no page, the render failed naming the rule where it cannot be; then what PDF/A asks
 * that Chromium does not write: the sRGB output intent with its ICC profile, XMP metadata stating
 * the PDF/A identification and the Info dictionary's facts (the two in sync, to the second), and a
 * document ID in the trailer.
 */
import { randomBytes } from 'node:crypto';
import { PDFHexString, PDFName, PDFRawStream, PDFString, decodePDFRawStream, type PDFDocument } from '@cantoo/pdf-lib';
import { PdfRenderError } from '../../errors.js';
import type { PdfaLevel } from '../../request-pdfa.js';
import { flateStream } from './flate-stream.js';
import { auditPdfa, headerProblem } from './pdfa-rules.js';
import { srgbIccProfile } from './srgb-profile.js';
import { xmpPacket, type XmpExtension, type XmpFacts } from './xmp.js';

/** What a finishing step may add to a PDF/A file's XMP (Factur-X's extension schema, say). */
export interface PdfaOptions {
  extensions?: XmpExtension[];
}

const outputCondition = 'sRGB IEC61966-2.1';

/** The trailer's /ID: Chromium writes none; two equal halves for a file that has had no earlier version. */
function ensureDocumentId(document: PDFDocument): Uint8Array {
  const { trailerInfo } = document.context;
  const existing = trailerInfo.ID;
  if (existing instanceof Object && 'get' in existing) {
    const first = (existing as { get(i: number): unknown }).get(0);
    if (first instanceof PDFHexString || first instanceof PDFString) return first.asBytes();
  }
  const id = randomBytes(16);
  const hex = PDFHexString.of(id.toString('hex'));
  trailerInfo.ID = document.context.obj([hex, hex]);
  return id;
}

const uuidOf = (id: Uint8Array) => {
  const hex = Buffer.from(id).toString('hex').padEnd(32, '0').slice(0, 32);
  return `uuid:${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

/** Whether the XMP already in the PDF claims PDF/UA-1 (the accessible path writes it): kept in the packet that replaces it. */
function claimsPdfua(document: PDFDocument): boolean {
  const stream = document.catalog.lookup(PDFName.of('Metadata'));
  if (!(stream instanceof PDFRawStream)) return false;
  const xmp = Buffer.from(decodePDFRawStream(stream).decode()).toString('utf8');
  return /pdfuaid:part(>|\s*=\s*["'])\s*1/.test(xmp);
}

/** The Info dictionary's facts as XMP states them, with the dates written back so that both say the same second. */
function infoFacts(document: PDFDocument, now: Date): XmpFacts {
  const creationDate = document.getCreationDate() ?? now;
  // Rewritten in pdf-lib's form (UTC, to the second), which xmpDate matches; Chromium writes +00'00'.
  document.setCreationDate(creationDate);
  document.setModificationDate(now);
  const lang = document.catalog.lookup(PDFName.of('Lang'));
  return {
    title: document.getTitle(),
    author: document.getAuthor(),
    subject: document.getSubject(),
    keywords: document.getKeywords(),
    creator: document.getCreator(),
    producer: document.getProducer(),
    creationDate: new Date(Math.floor(creationDate.getTime() / 1000) * 1000),
    modifyDate: new Date(Math.floor(now.getTime() / 1000) * 1000),
    lang: lang instanceof PDFString || lang instanceof PDFHexString ? lang.decodeText() : undefined,
  };
}

/** Make `document` (loaded from `original`) PDF/A at `level`; throws RENDER_PDF_FAILED naming the first rule it breaks that cannot be mended. */
export function makePdfa(
  document: PDFDocument,
  original: Uint8Array,
  level: PdfaLevel,
  now: Date,
  options: PdfaOptions = {},
): { mended: string[] } {
  const audit = auditPdfa(document);
  const header = headerProblem(original);
  const broken = header ? [header, ...audit.broken] : audit.broken;
  if (broken.length > 0)
    throw new PdfRenderError(
      'RENDER_PDF_FAILED',
      `the PDF cannot be made ${level}: ${broken[0]}${broken.length > 1 ? ` (and ${broken.length - 1} more: ${broken.slice(1, 4).join('; ')})` : ''}`,
      { documentFault: true },
    );
  const { context, catalog } = document;
  const profile = context.register(flateStream(context, srgbIccProfile(), { N: 3 }));
  catalog.set(
    PDFName.of('OutputIntents'),
    context.obj([
      {
        Type: 'OutputIntent',
        S: 'GTS_PDFA1',
        OutputConditionIdentifier: PDFString.of(outputCondition),
        Info: PDFString.of(outputCondition),
        RegistryName: PDFString.of('http://www.color.org'),
        DestOutputProfile: profile,
      },
    ]),
  );
  const id = ensureDocumentId(document);
  const facts: XmpFacts = {
    ...infoFacts(document, now),
    documentId: uuidOf(id),
    pdfa: { part: level === 'PDF/A-2b' ? 2 : 3, conformance: 'B' },
    ...(claimsPdfua(document) ? { pdfua: 1 as const } : {}),
    extensions: options.extensions,
  };
  // Unfiltered, as ISO 19005-2 6.6.2.1 asks, so that a tool that does not parse PDF can find it.
  const metadata = context.stream(xmpPacket(facts), { Type: 'Metadata', Subtype: 'XML' });
  catalog.set(PDFName.of('Metadata'), context.register(metadata));
  return { mended: audit.mended };
}
