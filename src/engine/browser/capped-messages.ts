/**
 * The browser's side of the DevTools pipe with every message cut to a bound before pdfrender reads
 * it. The Runtime domain is off (unneeded-commands.ts), but the Debugger, which tells pdfrender a
 * document ran script (page-state.ts), sends each script's sourceURL whole, and a script can name
 * one of any length: a 64 MB one cost pdfrender 0.3 GB and its event loop 0.2 s (issue 27 §3).
 * The largest message pdfrender asks for is a PDF chunk (print-pdf.ts, about 11 MB as base64).
 *
 * A message over the bound is read through and dropped, keeping its first and last bytes, and put
 * right where pdfrender needs it: an answer becomes an error answer to the same call, and a
 * Debugger.scriptParsed a script of the page's own (the page then gets a fresh window, the safe
 * side); any other event over the bound is dropped.
 */
import { Transform } from 'node:stream';

/** The largest message read from the browser. */
export const maxMessageBytes = 16 * 1024 * 1024;

// Kept of a message over the bound: enough for its method or id at the start and its sessionId, which
// the browser appends last.
const keptBytes = 4096;

const nul = Buffer.from([0]);

/** A transform of the pipe's bytes (messages ending in a NUL) that passes messages up to `maxBytes`. */
export function capMessages(maxBytes = maxMessageBytes): Transform {
  let parts: Buffer[] = [];
  let size = 0;
  let over: { head: Buffer; tail: Buffer } | undefined;
  const take = (piece: Buffer) => {
    size += piece.length;
    if (size <= maxBytes) return void parts.push(piece);
    if (over) return void (over.tail = Buffer.concat([over.tail, piece]).subarray(-keptBytes));
    // Crossing the bound: what was kept so far (at most the bound) is copied once, its ends kept.
    const all = Buffer.concat([...parts, piece]);
    over = { head: Buffer.from(all.subarray(0, keptBytes)), tail: Buffer.from(all.subarray(-keptBytes)) };
    parts = [];
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      for (let from = 0; ;) {
        const end = chunk.indexOf(0, from);
        take(chunk.subarray(from, end === -1 ? chunk.length : end));
        if (end === -1) break;
        // Pieces as they came: a message within the bound is never copied here.
        const message = over ? [standIn(over.head, over.tail, maxBytes)] : parts;
        if (message[0] !== undefined) {
          for (const piece of message) this.push(piece);
          this.push(nul);
        }
        parts = [];
        size = 0;
        over = undefined;
        from = end + 1;
      }
      done();
    },
  });
}

/** What stands in for a message over the bound, from its first and last bytes; undefined to drop it. */
function standIn(head: Buffer, tail: Buffer, maxBytes: number): string | undefined {
  const start = head.toString('latin1');
  const sessionId = /"sessionId":"([^"]+)"\}$/.exec(tail.toString('latin1'))?.[1];
  const id = /^\{"id":(\d+)/.exec(start)?.[1];
  if (id !== undefined)
    return JSON.stringify({
      id: Number(id),
      error: { code: -32000, message: `the browser's answer was over ${maxBytes} bytes` },
      sessionId,
    });
  if (start.startsWith('{"method":"Debugger.scriptParsed"'))
    return JSON.stringify({
      method: 'Debugger.scriptParsed',
      params: { scriptId: '', url: '', executionContextAuxData: { isDefault: true } },
      sessionId,
    });
  return undefined;
}
