/**
 * The page of each named destination in a PDF Chromium wrote. Chromium (Skia) writes one for every
 * element an in-document link points at, in the catalog's /Dests dictionary, named by the link's
 * URL fragment as serialized (percent-encoded), each `[<page ref> /XYZ x y 0]`. Only the objects on
 * the way are read, through the cross-reference table (Skia writes a classic one, uncompressed):
 * the catalog, the page tree's nodes and the /Dests dictionary, never the content streams, so a PDF
 * of hundreds of pages is read in about a millisecond.
 */

/** Page number (from 1) of each named destination; undefined when the PDF is not laid out as Chromium writes it. */
export function destinationPages(pdf: Uint8Array): Map<string, number> | undefined {
  const bytes = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  const tail = bytes.toString('latin1', Math.max(0, bytes.length - 1024));
  const startxref = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail);
  if (!startxref) return undefined;
  // The newest cross-reference section first, then those before it (/Prev): an incremental update
  // (pdfrender's own finishing, on a PDF read again) lists only the objects it changed.
  const offsets = new Map<number, number>();
  let rootEntry: string | undefined; // the newest trailer's `/Root n 0 R`
  for (
    let at: number | undefined = Number(startxref[1]), sections = 0;
    at !== undefined && sections < 16;
    sections += 1
  ) {
    const trailerAt = bytes.indexOf('trailer', at, 'latin1');
    if (trailerAt < 0) return undefined;
    for (const [ref, offset] of xrefOffsets(bytes.toString('latin1', at, trailerAt)))
      if (!offsets.has(ref)) offsets.set(ref, offset);
    const trailer = bytes.toString('latin1', trailerAt, Math.min(bytes.length, trailerAt + 512));
    rootEntry ??= /\/Root\s+(\d+)\s+\d+\s+R/.exec(trailer)?.[0];
    const prev = /\/Prev\s+(\d+)/.exec(trailer);
    at = prev ? Number(prev[1]) : undefined;
  }
  const object = (ref: number | undefined): string | undefined => {
    const at = ref === undefined ? undefined : offsets.get(ref);
    if (at === undefined) return undefined;
    // At a line's start: a destination's name is the document's (href="#endobj"), and never holds a newline.
    const end = bytes.indexOf('\nendobj', at, 'latin1');
    return end < 0 ? undefined : bytes.toString('latin1', at, end);
  };
  const refOf = (dictionary: string | undefined, key: string) => {
    const match = new RegExp(`/${key}\\s+(\\d+)\\s+\\d+\\s+R`).exec(dictionary ?? '');
    return match ? Number(match[1]) : undefined;
  };
  const catalog = object(refOf(rootEntry, 'Root'));
  if (!catalog) return undefined;
  const pageNumbers = new Map<number, number>();
  // The page tree in order: a node's /Kids, depth first; a leaf (no /Kids) is the next page.
  const walk = (ref: number, depth: number): void => {
    const node = object(ref);
    if (!node || depth > 32) return;
    const kids = /\/Kids\s*\[([^\]]*)\]/.exec(node);
    if (!kids) pageNumbers.set(ref, pageNumbers.size + 1);
    else for (const kid of kids[1]!.matchAll(/(\d+)\s+\d+\s+R/g)) walk(Number(kid[1]), depth + 1);
  };
  const root = refOf(catalog, 'Pages');
  if (root !== undefined) walk(root, 0);
  const pages = new Map<string, number>();
  const dests = object(refOf(catalog, 'Dests'));
  for (const [, name, page] of dests?.matchAll(/\/([^\s/[\]<>()]*)\s*\[\s*(\d+)\s+\d+\s+R/g) ?? []) {
    const number = pageNumbers.get(Number(page));
    if (number !== undefined) pages.set(decodeName(name!), number);
  }
  return pages;
}

// Object number to byte offset, from a classic cross-reference table's text.
function xrefOffsets(table: string): Map<number, number> {
  const offsets = new Map<number, number>();
  let next = 0;
  for (const line of table.split(/\r?\n|\r/)) {
    const section = /^(\d+)\s+(\d+)\s*$/.exec(line);
    const entry = /^(\d{10})\s+\d{5}\s+([nf])/.exec(line);
    if (entry) {
      if (entry[2] === 'n') offsets.set(next, Number(entry[1]));
      next += 1;
    } else if (section) next = Number(section[1]);
  }
  return offsets;
}

// A PDF name's bytes (#xx escapes undone), read as Latin-1: a serialized URL fragment is ASCII.
const decodeName = (name: string): string =>
  name.replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
