/**
 * The fonts a PDF draws its text with, as the report names them: each font descriptor's /FontName,
 * without the subset tag ("CAAAAA+NotoSansCJKjp-Regular" is NotoSansCJKjp-Regular). Chromium embeds
 * a font for every one it drew with, the fallbacks it chose for scripts the document's fonts lack
 * included, and writes font descriptors as plain objects. So a search of the bytes finds them,
 * without parsing the PDF (which a report on every render could not afford on a document of
 * thousands of pages) or turning it into a string (which a PDF of hundreds of MB could not be).
 */
import { reportBounds } from './render-report.js';

const key = Buffer.from('/FontName');
// A name's end: white space or a delimiter (PDF 32000-1, 7.2.2).
const delimiters = new Set([...' \t\r\n\f\0()<>[]{}/%'].map((ch) => ch.charCodeAt(0)));

/** The font names in `pdf`'s font descriptors, each once, in the order found. */
export function pdfFontNames(pdf: Uint8Array): string[] {
  const bytes = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  const names = new Set<string>();
  for (let at = bytes.indexOf(key); at !== -1 && names.size < reportBounds.fonts; at = bytes.indexOf(key, at + 1)) {
    let start = at + key.length;
    while (start < bytes.length && (bytes[start] === 0x20 || bytes[start] === 0x0a || bytes[start] === 0x0d))
      start += 1;
    if (bytes[start] !== 0x2f) continue; // "/": the value is a name
    let end = start + 1;
    while (end < bytes.length && end - start < 200 && !delimiters.has(bytes[end]!)) end += 1;
    const name = bytes.toString('latin1', start + 1, end).replace(/^[A-Z]{6}\+/, '');
    if (name) names.add(name);
  }
  return [...names];
}
