/**
 * A body's shape, counted before it is parsed. Parsing runs on the event loop in one go: 10 MB of
 * nested JSON took JSON.parse 4.7 s and a million urlencoded pairs 1.9 s, with every other request
 * waiting (issue 27 §5). A request needs a few dozen fields nested three deep, so a body far past
 * that is refused by counting, which stops at the limit and so costs next to nothing, and what is
 * parsed is small in structure whatever its size in bytes (a 10 MB htmlContent is one string).
 */
import { PdfRenderError } from '../../errors.js';

/** How deep arrays and objects may nest in a JSON body (a request's deepest is metadata.keywords, 3). */
export const maxJsonDepth = 32;

/**
 * How many values a JSON body's arrays and objects may hold together: a request has a few dozen
 * (keywords, at most 100, the most); 10 000 parse in a few milliseconds.
 */
export const maxJsonValues = 10_000;

/** How many fields (name/value pairs, parts) a urlencoded or multipart body may have: as many values as JSON. */
export const maxFormFields = maxJsonValues;

/** Refuse a JSON text nested deeper than maxJsonDepth or holding more than maxJsonValues values, reading only as far as it must. */
export function checkJsonShape(text: string): void {
  let depth = 0;
  let values = 0;
  for (let at = 0; at < text.length; at += 1) {
    const char = text.charCodeAt(at);
    if (char === 0x22) at = stringEnd(text, at);
    else if (char === 0x5b || char === 0x7b) {
      depth += 1;
      values += 1;
      if (depth > maxJsonDepth) throw tooComplex(`nests arrays and objects more than ${maxJsonDepth} deep`);
    } else if (char === 0x5d || char === 0x7d) depth -= 1;
    else if (char === 0x2c) values += 1;
    if (values > maxJsonValues)
      throw tooComplex(`holds more than ${maxJsonValues} values in its arrays and objects together`);
  }
}

/** Refuse a urlencoded text of more than maxFormFields pairs, counting its "&" only up to the limit. */
export function checkUrlEncodedFields(text: string): void {
  for (let at = text.indexOf('&'), pairs = 1; at !== -1; at = text.indexOf('&', at + 1))
    if ((pairs += 1) > maxFormFields) throw tooManyFields();
}

/** Refuse a multipart body of more than maxFormFields parts, counting its boundary lines only up to the limit. */
export function checkMultipartParts(bytes: Uint8Array, contentType: string): void {
  const boundary = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  if (!boundary) return; // the form parser refuses it, saying why
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // The closing delimiter is one more than the parts.
  for (let at = body.indexOf(delimiter), parts = 0; at !== -1; at = body.indexOf(delimiter, at + delimiter.length))
    if ((parts += 1) > maxFormFields + 1) throw tooManyFields();
}

// The index of the quote that closes the JSON string opening at `start` (the text's end if none):
// a quote closes it when an even number of backslashes precede it.
function stringEnd(text: string, start: number): number {
  for (let from = start + 1; ;) {
    const quote = text.indexOf('"', from);
    if (quote === -1) return text.length;
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === 0x5c) slashes += 1;
    if (slashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

const tooComplex = (what: string) =>
  new PdfRenderError('PAYLOAD_TOO_LARGE', `the JSON body ${what}; a render request needs far fewer`);

const tooManyFields = () =>
  new PdfRenderError(
    'PAYLOAD_TOO_LARGE',
    `the body has more than ${maxFormFields} fields; a render request needs far fewer`,
  );
