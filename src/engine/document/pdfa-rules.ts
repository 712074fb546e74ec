/**
 * The PDF/A-2 and -3 rules (ISO 19005-2 and -3, level B) that Chromium's output could break, read
 * off the PDF's objects: each either mended in place (what changes no page's look: an image's
 * /Interpolate, an annotation's print flags) or reported, for the render to fail naming it. Which
 * rules these are comes from reading Skia's output (fixtures/invoice and fixtures/report through
 * qpdf --qdf): fonts as embedded TrueType (CIDFontType2) or Type 3, DeviceRGB and ICCBased colour,
 * transparency through ExtGState /ca and /BM, Link annotations, no encryption, actions or forms.
 * Content streams are not parsed: a DeviceCMYK operator (k, K) or a .notdef glyph there is not seen.
 */
import {
  PDFArray,
  PDFBool,
  PDFDict,
  PDFName,
  PDFNumber,
  PDFStream,
  type PDFDocument,
  type PDFObject,
} from '@cantoo/pdf-lib';

/** What a PDF held against PDF/A: the rules it broke that cannot be mended, and what was mended. */
export interface PdfaAudit {
  broken: string[];
  mended: string[];
}

const forbiddenActions = new Set([
  'Launch',
  'Sound',
  'Movie',
  'ResetForm',
  'ImportData',
  'Hide',
  'SetOCGState',
  'Rendition',
  'Trans',
  'GoTo3DView',
  'JavaScript',
]);
const allowedNamedActions = new Set(['NextPage', 'PrevPage', 'FirstPage', 'LastPage']);
const forbiddenAnnotations = new Set(['3D', 'Sound', 'Screen', 'Movie', 'RichMedia', 'TrapNet']);
const fontFileKeys = ['FontFile', 'FontFile2', 'FontFile3'].map((key) => PDFName.of(key));
// Annotation flags (PDF 1.7, 12.5.3): Invisible 1, Hidden 2, Print 4, NoView 32, ToggleNoView 256.
const print = 4;
const notShown = 1 | 2 | 32 | 256;

const name = (dict: PDFDict, key: string) => {
  const value = dict.lookup(PDFName.of(key));
  return value instanceof PDFName ? value.decodeText() : undefined;
};

/** Check one dictionary (a direct one inside another object included) against the rules, mending what can be. */
function auditDict(dict: PDFDict, isStream: boolean, audit: PdfaAudit): void {
  const type = name(dict, 'Type');
  const subtype = name(dict, 'Subtype');
  const action = name(dict, 'S');
  if (action && forbiddenActions.has(action) && (type === undefined || type === 'Action'))
    audit.broken.push(`ISO 19005-2 6.5.1: the PDF holds a ${action} action, which PDF/A forbids`);
  if (action === 'Named' && !allowedNamedActions.has(name(dict, 'N') ?? ''))
    audit.broken.push(
      `ISO 19005-2 6.5.1: the PDF holds a named action other than NextPage, PrevPage, FirstPage, LastPage`,
    );
  if (dict.has(PDFName.of('AA')) && (type === 'Catalog' || type === 'Page' || type === 'Annot'))
    audit.broken.push(`ISO 19005-2 6.5.2: a ${type} has additional actions (/AA), which PDF/A forbids`);
  if (isStream) {
    for (const key of ['F', 'FFilter', 'FDecodeParms'])
      if (dict.has(PDFName.of(key)) && type !== 'EmbeddedFile')
        audit.broken.push(`ISO 19005-2 6.1.7: a stream refers to an external file (/${key})`);
    const filters = dict.lookup(PDFName.of('Filter'));
    const names = filters instanceof PDFArray ? filters.asArray() : [filters];
    if (names.some((filter) => filter instanceof PDFName && /^\/(LZWDecode|Crypt)$/.test(filter.asString())))
      audit.broken.push('ISO 19005-2 6.1.7: a stream is LZW-compressed or encrypted');
  }
  if (subtype === 'Image' || type === 'XObject') {
    if (dict.lookup(PDFName.of('Interpolate')) === PDFBool.True) {
      dict.set(PDFName.of('Interpolate'), PDFBool.False);
      audit.mended.push('ISO 19005-2 6.2.8: an image asked to be interpolated (/Interpolate set to false)');
    }
    for (const key of ['Alternates', 'OPI']) {
      if (!dict.has(PDFName.of(key))) continue;
      dict.delete(PDFName.of(key));
      audit.mended.push(`ISO 19005-2 6.2.8: an image or form had /${key} (removed: readers show the XObject itself)`);
    }
    if (subtype === 'PS' || name(dict, 'Subtype2') === 'PS')
      audit.broken.push('ISO 19005-2 6.2.9: the PDF holds a PostScript XObject');
    if (dict.has(PDFName.of('Ref'))) audit.broken.push('ISO 19005-2 6.2.9: the PDF holds a reference XObject');
  }
  if (type === 'ExtGState') {
    if (dict.has(PDFName.of('TR')))
      audit.broken.push('ISO 19005-2 6.2.5: a graphics state sets a transfer function (/TR)');
    const tr2 = dict.lookup(PDFName.of('TR2'));
    if (tr2 && !(tr2 instanceof PDFName && tr2.decodeText() === 'Default'))
      audit.broken.push('ISO 19005-2 6.2.5: a graphics state sets a transfer function (/TR2)');
    if (dict.has(PDFName.of('HTP')))
      audit.broken.push('ISO 19005-2 6.2.5: a graphics state sets a halftone origin (/HTP)');
  }
  if (type === 'Font' && subtype && subtype !== 'Type0' && subtype !== 'Type3') {
    const descriptor = dict.lookup(PDFName.of('FontDescriptor'));
    if (!(descriptor instanceof PDFDict) || !fontFileKeys.some((key) => descriptor.has(key)))
      audit.broken.push(`ISO 19005-2 6.2.11.4.1: the font ${name(dict, 'BaseFont') ?? '(unnamed)'} is not embedded`);
  }
  if (type === 'Annot' || (subtype === 'Link' && dict.has(PDFName.of('Rect')))) {
    if (subtype && forbiddenAnnotations.has(subtype))
      audit.broken.push(`ISO 19005-2 6.3.1: the PDF holds a ${subtype} annotation, which PDF/A forbids`);
    else if (subtype !== 'Popup') {
      const flags = dict.lookup(PDFName.of('F'));
      const before = flags instanceof PDFNumber ? flags.asNumber() : 0;
      const after = (before | print) & ~notShown;
      if (after !== before || !(flags instanceof PDFNumber)) {
        dict.set(PDFName.of('F'), PDFNumber.of(after));
        audit.mended.push(
          `ISO 19005-2 6.3.2: a ${subtype ?? ''} annotation was not flagged to print (/F set to ${after})`,
        );
      }
    }
  }
  for (const [, value] of dict.entries()) walk(value, audit);
}

/** Direct objects inside `value` (an indirect one is checked on its own). */
function walk(value: PDFObject, audit: PdfaAudit): void {
  if (value instanceof PDFDict) auditDict(value, false, audit);
  else if (value instanceof PDFArray) for (const item of value.asArray()) walk(item, audit);
  // A colour space named anywhere: an image's, a resource's, an alternate's.
  else if (value === PDFName.of('DeviceCMYK'))
    audit.broken.push('ISO 19005-2 6.2.4.3: the PDF paints in DeviceCMYK, which the sRGB output intent does not cover');
}

/** Read every object of `document` against the PDF/A rules Chromium's output could break, mending what can be (in place). */
export function auditPdfa(document: PDFDocument): PdfaAudit {
  const audit: PdfaAudit = { broken: [], mended: [] };
  if (document.context.trailerInfo.Encrypt) audit.broken.push('ISO 19005-2 6.1.3: the PDF is encrypted');
  const names = document.catalog.lookup(PDFName.of('Names'));
  if (names instanceof PDFDict && names.has(PDFName.of('JavaScript')))
    audit.broken.push('ISO 19005-2 6.5.1: the PDF holds document-level JavaScript');
  for (const [, object] of document.context.enumerateIndirectObjects()) {
    if (object instanceof PDFStream) auditDict(object.dict, true, audit);
    else walk(object, audit);
  }
  return { broken: [...new Set(audit.broken)], mended: [...new Set(audit.mended)] };
}

/** The header problem PDF/A sees in `bytes` (ISO 19005-2 6.1.2: %PDF-1.n, n from 0 to 7, then a comment of four bytes above 127), or null. */
export function headerProblem(bytes: Uint8Array): string | null {
  const head = Buffer.from(bytes.subarray(0, 32)).toString('latin1');
  const match = /^%PDF-1\.[0-7](\r\n|\r|\n)%([\x80-\xff]{4})/.exec(head);
  return match ? null : 'ISO 19005-2 6.1.2: the file header is not %PDF-1.0 to 1.7 followed by a binary comment';
}
