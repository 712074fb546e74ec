/**
 * A few objects of a PDF read, and new versions of them appended as an incremental update (ISO
 * 32000-1, 7.5.6), without parsing the rest. Every tagged render changes only the catalog, the
 * document information and its pages' content streams; pdf-lib would parse every object first,
 * 18 ms for the invoice and 62 ms for the 50-page report after a 200 ms import on a cold start,
 * more than the invoice's whole print. This reads what Chromium writes: a cross-reference table
 * (earlier sections followed by /Prev). A file with cross-reference streams, or anything else it
 * does not find where it should be, gives undefined, and the caller leaves the PDF as it was.
 */
import { nodeZlib } from '../../lazy-module.js';
import { readDict, refNumber, valueEnd, writeDict, type RawDict } from './pdf-syntax.js';

/** An object to write: a dictionary's entries, or a stream's dictionary and bytes. */
export type NewObject = RawDict | { dict: RawDict; data: Uint8Array };

/** A PDF opened for a small update. */
export interface PdfUpdate {
  trailer: RawDict;
  /** The object's text (what is between "obj" and "endobj", or before "stream"), or undefined. */
  text(number: number): string | undefined;
  /** A dictionary object's entries, or undefined. */
  dict(number: number): RawDict | undefined;
  /** A stream object's bytes, decoded where it is FlateDecode, or undefined. */
  streamData(number: number): { dict: RawDict; data: Buffer } | undefined;
  /** A stream object's bytes as written (still encoded, its filters in its dictionary), or undefined. */
  rawStream(number: number): { dict: RawDict; data: Buffer } | undefined;
  /** A number for a new object. */
  allocate(): number;
  /** Write `object` as object `number` (a new version of it, or a new one). */
  set(number: number, object: NewObject): void;
  /** The PDF with every set object appended, and `trailer`'s changes. */
  bytes(): Uint8Array;
}

/** Open `pdf` for an update, or undefined when it is not written as this reads. */
export function openPdfUpdate(pdf: Uint8Array): PdfUpdate | undefined {
  const bytes = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  const tail = bytes.toString('latin1', Math.max(0, bytes.length - 1024));
  const start = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail);
  if (!start) return undefined;
  const lastXref = Number(start[1]);
  const offsets = new Map<number, number>();
  let trailer: RawDict | undefined;
  try {
    // Newest section first; an object keeps the offset its newest section gives.
    for (let at: number | undefined = lastXref, sections = 0; at !== undefined; sections += 1) {
      if (sections > 64 || at >= bytes.length) return undefined;
      const section = readXrefSection(bytes, at);
      if (!section) return undefined;
      for (const [number, offset] of section.offsets) if (!offsets.has(number)) offsets.set(number, offset);
      trailer ??= section.trailer;
      const prev = section.trailer.get('Prev');
      at = prev === undefined ? undefined : Number(prev);
    }
  } catch {
    return undefined;
  }
  if (!trailer?.get('Root') || trailer.get('Encrypt')) return undefined;
  // An object's bytes end where the next object (or a cross-reference section) begins.
  const starts = [...offsets.values(), lastXref, bytes.length].sort((a, b) => a - b);
  const endOf = (offset: number) => starts[starts.findIndex((at) => at > offset)] ?? bytes.length;
  const written = new Map<number, NewObject>();
  let size = Number(trailer.get('Size') ?? 0);

  // A stream's data is read by its length, not as text: only its dictionary (`limit` characters) is.
  const body = (number: number, limit = 4 * 1024 * 1024): { text: string; offset: number } | undefined => {
    const offset = offsets.get(number);
    if (offset === undefined) return undefined;
    const end = Math.min(endOf(offset), offset + limit);
    const text = bytes.toString('latin1', offset, end);
    const header = new RegExp(`^\\s*${number}\\s+\\d+\\s+obj\\b`).exec(text);
    return header ? { text: text.slice(header[0].length), offset: offset + header[0].length } : undefined;
  };
  const update: PdfUpdate = {
    trailer: new Map(trailer),
    text(number) {
      const found = body(number);
      return found && found.text.slice(0, valueEnd(found.text, 0)).trim();
    },
    dict(number) {
      const text = update.text(number);
      return text?.startsWith('<<') ? readDict(text, 0).dict : undefined;
    },
    streamData(number) {
      const stream = update.rawStream(number);
      if (!stream) return undefined;
      const filter = stream.dict.get('Filter');
      if (filter === undefined) return stream;
      if (filter !== '/FlateDecode' || stream.dict.has('DecodeParms')) return undefined;
      return { dict: stream.dict, data: nodeZlib().inflateSync(stream.data) };
    },
    rawStream(number) {
      const found = body(number, 64 * 1024);
      if (!found?.text.trimStart().startsWith('<<')) return undefined;
      const { dict, end } = readDict(found.text, 0);
      const keyword = /^\s*stream(\r\n|\n|\r)/.exec(found.text.slice(end));
      const length = Number(dict.get('Length'));
      if (!keyword || !Number.isInteger(length)) return undefined;
      const dataStart = found.offset + end + keyword[0].length;
      return { dict, data: bytes.subarray(dataStart, dataStart + length) };
    },
    allocate: () => size++,
    set(number, object) {
      written.set(number, object);
      size = Math.max(size, number + 1);
    },
    bytes() {
      if (written.size === 0) return pdf;
      const parts: Buffer[] = [bytes, Buffer.from(bytes.at(-1) === 0x0a ? '' : '\n', 'latin1')];
      let offset = parts[0]!.length + parts[1]!.length;
      const placed: [number, number][] = [];
      for (const [number, object] of [...written].sort(([a], [b]) => a - b)) {
        const encoded = encodeObject(number, object);
        placed.push([number, offset]);
        parts.push(encoded);
        offset += encoded.length;
      }
      const table = xrefTable(placed);
      const newTrailer = new Map(update.trailer);
      newTrailer.set('Size', String(size));
      newTrailer.set('Prev', String(lastXref));
      parts.push(Buffer.from(`${table}trailer\n${writeDict(newTrailer)}\nstartxref\n${offset}\n%%EOF\n`, 'latin1'));
      return Buffer.concat(parts);
    },
  };
  return update;
}

// One cross-reference section and the trailer after it, or undefined when what is there is not one
// (a cross-reference stream, which Chromium does not write).
function readXrefSection(bytes: Buffer, at: number): { offsets: Map<number, number>; trailer: RawDict } | undefined {
  const head = bytes.toString('latin1', at, at + 4);
  if (head !== 'xref') return undefined;
  const trailerAt = bytes.indexOf('trailer', at, 'latin1');
  if (trailerAt === -1) return undefined;
  const table = bytes.toString('latin1', at + 4, trailerAt);
  const offsets = new Map<number, number>();
  const lines = table.split(/\r\n|\r|\n/).filter((line) => line.trim() !== '');
  for (let index = 0; index < lines.length;) {
    const subsection = /^\s*(\d+)\s+(\d+)\s*$/.exec(lines[index]!);
    if (!subsection) return undefined;
    const first = Number(subsection[1]);
    const count = Number(subsection[2]);
    for (let entry = 0; entry < count; entry += 1) {
      const line = /^(\d{10}) (\d{5}) ([nf])/.exec(lines[index + 1 + entry] ?? '');
      if (!line) return undefined;
      if (line[3] === 'n') offsets.set(first + entry, Number(line[1]));
    }
    index += 1 + count;
  }
  const trailerText = bytes.toString('latin1', trailerAt + 7, Math.min(bytes.length, trailerAt + 7 + 4096));
  return { offsets, trailer: readDict(trailerText, 0).dict };
}

function encodeObject(number: number, object: NewObject): Buffer {
  if (object instanceof Map) return Buffer.from(`${number} 0 obj\n${writeDict(object)}\nendobj\n`, 'latin1');
  const dict = new Map(object.dict);
  dict.set('Length', String(object.data.byteLength));
  return Buffer.concat([
    Buffer.from(`${number} 0 obj\n${writeDict(dict)}\nstream\n`, 'latin1'),
    object.data,
    Buffer.from('\nendstream\nendobj\n', 'latin1'),
  ]);
}

// The new section: each object's offset, consecutive numbers in one subsection (7.5.4).
function xrefTable(placed: [number, number][]): string {
  const lines: string[] = ['xref'];
  for (let index = 0; index < placed.length;) {
    let run = 1;
    while (index + run < placed.length && placed[index + run]![0] === placed[index]![0] + run) run += 1;
    lines.push(`${placed[index]![0]} ${run}`);
    for (const [, offset] of placed.slice(index, index + run))
      lines.push(`${String(offset).padStart(10, '0')} 00000 n `);
    index += run;
  }
  return `${lines.join('\n')}\n`;
}

/** The object number of a dictionary's reference entry, such as the trailer's /Root. */
export const entryRef = (dict: RawDict | undefined, key: string): number | undefined => refNumber(dict?.get(key));
