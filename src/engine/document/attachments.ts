/**
 * Files embedded in a PDF as PDF/A-3 (ISO 19005-3, 6.8) and ZUGFeRD/Factur-X ask: each an
 * EmbeddedFile stream (its media type as /Subtype, /Params with /Size and /ModDate), a file
 * specification with /F, /UF, /Desc and /AFRelationship, listed in the catalog's /AF array and its
 * /Names /EmbeddedFiles name tree. pdf-lib's own `attach` writes no /AF, leaves the tree unsorted
 * and writes /F unescaped, so this writes the objects itself.
 */
import { PDFArray, PDFDict, PDFHexString, PDFName, PDFString, type PDFDocument, type PDFRef } from '@cantoo/pdf-lib';
import { flateStream } from './flate-stream.js';
import type { AttachmentRelationship } from '../../request-attachments.js';

/** A file to embed, as bytes. */
export interface EmbeddedFile {
  name: string;
  bytes: Uint8Array;
  /** Such as "text/xml"; written as the stream's /Subtype. */
  mediaType: string;
  relationship: AttachmentRelationship;
  description?: string | null;
  /** The file's modification date (/Params /ModDate); ZUGFeRD readers expect one. */
  modified: Date;
}

/** A request's attachment (base64, as the request schema has it) as a file to embed, dated `modified`. */
export const embeddedFileOf = (
  attachment: {
    name: string;
    content: string;
    mediaType: string;
    relationship: AttachmentRelationship;
    description: string | null;
  },
  modified: Date,
): EmbeddedFile => ({ ...attachment, bytes: Buffer.from(attachment.content, 'base64'), modified });

// /F is a byte string in the platform's encoding; the name in full is /UF. An ASCII stand-in, written
// as hex so that no character can end the string early.
const asciiName = (name: string) => Buffer.from(name.replace(/[^\x20-\x7e]/g, '_'), 'latin1').toString('hex');

/** The key a file is listed under in the name tree: UTF-16BE, so that code-unit order is the byte order the tree's sort needs. */
const treeKey = (name: string) => PDFHexString.fromText(name);

/** Embed `files` in `document`: streams, file specifications, the catalog's /AF and its EmbeddedFiles name tree (kept sorted, with what it already lists). */
export function embedAttachments(document: PDFDocument, files: readonly EmbeddedFile[]): void {
  if (files.length === 0) return;
  const { context, catalog } = document;
  const added = files.map((file): [string, PDFRef] => {
    const stream = flateStream(context, file.bytes, {
      Type: 'EmbeddedFile',
      Subtype: PDFName.of(file.mediaType),
      Params: { Size: file.bytes.byteLength, ModDate: PDFString.fromDate(file.modified) },
    });
    const streamRef = context.register(stream);
    const spec = context.obj({
      Type: 'Filespec',
      F: PDFHexString.of(asciiName(file.name)),
      UF: PDFHexString.fromText(file.name),
      EF: { F: streamRef, UF: streamRef },
      AFRelationship: PDFName.of(file.relationship),
      ...(file.description ? { Desc: PDFHexString.fromText(file.description) } : {}),
    });
    return [file.name, context.register(spec)];
  });
  const af = catalog.lookupMaybe(PDFName.of('AF'), PDFArray) ?? context.obj([]);
  for (const [, ref] of added) af.push(ref);
  catalog.set(PDFName.of('AF'), af);

  const names = catalog.lookupMaybe(PDFName.of('Names'), PDFDict) ?? context.obj({});
  const tree = names.lookupMaybe(PDFName.of('EmbeddedFiles'), PDFDict) ?? context.obj({});
  const listed = tree.lookupMaybe(PDFName.of('Names'), PDFArray);
  const entries: [string, PDFHexString | PDFString, unknown][] = [];
  for (let index = 0; listed && index + 1 < listed.size(); index += 2) {
    const key = listed.get(index);
    if (key instanceof PDFHexString || key instanceof PDFString)
      entries.push([key.decodeText(), key, listed.get(index + 1)]);
  }
  for (const [name, ref] of added) entries.push([name, treeKey(name), ref]);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  tree.set(PDFName.of('Names'), context.obj(entries.flatMap(([, key, value]) => [key, value as PDFRef])));
  names.set(PDFName.of('EmbeddedFiles'), tree);
  catalog.set(PDFName.of('Names'), names);
}
