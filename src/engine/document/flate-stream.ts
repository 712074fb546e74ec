/**
 * A Flate-compressed stream object for pdf-lib, compressed by Node's zlib: pdf-lib's own
 * flateStream (pako, in JavaScript) took 4 to 90 ms for the 2.6 KB ICC profile on a busy machine,
 * zlib a fraction of a millisecond.
 */
import { nodeZlib } from '../../lazy-module.js';
import type { PDFContext, PDFRawStream } from '@cantoo/pdf-lib';

/** `bytes` as a FlateDecode stream with `dict`'s entries (pdf-lib's context.obj literal form). */
export const flateStream = (
  context: PDFContext,
  bytes: Uint8Array,
  dict: NonNullable<Parameters<PDFContext['stream']>[1]>,
): PDFRawStream => context.stream(nodeZlib().deflateSync(bytes), { ...dict, Filter: 'FlateDecode' });
