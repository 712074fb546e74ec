/**
 * Document information written into a finished PDF, only when a request asks for it. With
 * @cantoo/pdf-lib (the maintained fork of pdf-lib: MIT, pure JavaScript, no native build, releases
 * through 2026 where pdf-lib's last was in 2021), as an incremental update: Chromium's bytes stay
 * as they were and a new information dictionary is appended after them, so the pages are never
 * parsed and written again.
 */
import { PDFDocument } from '@cantoo/pdf-lib';
import type { PdfMetadata } from '../request.js';

/** `pdf` with `metadata`'s fields set in its document information (the rest as Chromium wrote it). */
export async function withMetadata(pdf: Uint8Array, metadata: PdfMetadata): Promise<Uint8Array> {
  const document = await PDFDocument.load(pdf, { forIncrementalUpdate: true, updateMetadata: false });
  if (metadata.title) document.setTitle(metadata.title);
  if (metadata.author) document.setAuthor(metadata.author);
  if (metadata.subject) document.setSubject(metadata.subject);
  // One entry: pdf-lib joins a list with spaces, which would run "a" and "b c" together as "a b c".
  if (metadata.keywords) document.setKeywords([metadata.keywords.join(', ')]);
  if (metadata.creator) document.setCreator(metadata.creator);
  if (metadata.creationDate) document.setCreationDate(metadata.creationDate);
  return document.commit();
}
