/**
 * The page of each named destination in a PDF Chromium wrote. Chromium (Skia) writes one for every
 * element an in-document link points at, in the catalog's /Dests dictionary, named by the link's
 * URL fragment as serialized (percent-encoded), each `[<page ref> /XYZ x y 0]`. Only the objects on
 * the way are read (document/pdf-update.ts): the catalog, the page tree's nodes and the /Dests
 * dictionary, never the content streams, so a PDF of hundreds of pages is read in about a millisecond.
 */
import { entryRef, openPdfUpdate } from '../document/pdf-update.js';
import { refNumbers } from '../document/pdf-syntax.js';

/** Page number (from 1) of each named destination; undefined when the PDF is not laid out as Chromium writes it. */
export function destinationPages(pdf: Uint8Array): Map<string, number> | undefined {
  try {
    const file = openPdfUpdate(pdf);
    const catalog = file?.dict(entryRef(file.trailer, 'Root') ?? -1);
    if (!file || !catalog) return undefined;
    const pageNumbers = new Map<number, number>();
    // The page tree in order: a node's /Kids, depth first; a leaf (no /Kids) is the next page.
    const walk = (ref: number, depth: number): void => {
      const node = file.dict(ref);
      if (!node || depth > 32) return;
      if (!node.has('Kids')) pageNumbers.set(ref, pageNumbers.size + 1);
      else for (const kid of refNumbers(node.get('Kids'))) walk(kid, depth + 1);
    };
    const root = entryRef(catalog, 'Pages');
    if (root !== undefined) walk(root, 0);
    const pages = new Map<string, number>();
    const dests = file.dict(entryRef(catalog, 'Dests') ?? -1);
    for (const [name, destination] of dests ?? []) {
      const number = pageNumbers.get(refNumbers(destination)[0] ?? -1);
      if (number !== undefined) pages.set(decodeName(name), number);
    }
    return pages;
  } catch {
    return undefined; // not PDF syntax as Chromium writes it
  }
}

// A PDF name's bytes (#xx escapes undone), read as Latin-1: a serialized URL fragment is ASCII.
const decodeName = (name: string): string =>
  name.replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
