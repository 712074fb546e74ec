/**
 * Page count of a PDF that Chromium wrote, read from its page tree without parsing the whole file.
 * Chromium (Skia) writes the page tree as plain dictionaries; the root /Pages node holds the total.
 */

// `<< /Type /Pages /Count N ... >>` with the keys in any order within one dictionary.
const pagesDictionary = /<<(?:(?!>>)[^])*?\/Type\s*\/Pages\b(?:(?!>>)[^])*?>>/g;
const countEntry = /\/Count\s+(\d+)/;

/** The number of pages in `pdf`: the largest /Count of its /Pages nodes (the root's). */
export function countPdfPages(pdf: Uint8Array): number {
  const text = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength).toString('latin1');
  let pages = 0;
  for (const dictionary of text.matchAll(pagesDictionary)) {
    const count = countEntry.exec(dictionary[0]);
    if (count) pages = Math.max(pages, Number(count[1]));
  }
  return pages;
}
