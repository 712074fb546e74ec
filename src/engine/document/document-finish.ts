/**
 * What every render writes into Chromium's PDF itself, as one small incremental update
 * (pdf-update.ts): the request's document information, and for a tagged PDF what PDF/UA-1 asks
 * beyond Chromium's tags (it already writes the structure tree, /MarkInfo, the catalog's /Lang from
 * <html lang> and DisplayDocTitle): the request's `lang` where the document gives none, the title
 * shown as the window's, XMP metadata with the title, the language and the PDF/UA identification,
 * and the header and footer marked as artifacts (template-artifacts.ts).
 */
import { nodeZlib } from '../../lazy-module.js';
import { PdfRenderError } from '../../errors.js';
import type { PdfMetadata } from '../../request.js';
import type { RenderReport } from '../report/render-report.js';
import { openPdfUpdate, entryRef, type PdfUpdate } from './pdf-update.js';
import { decodeTextString, pdfDate, readDict, refNumbers, textString, writeDict, type RawDict } from './pdf-syntax.js';
import { markTemplates } from './template-artifacts.js';
import { xmpPacket } from './xmp.js';

/** What the finish needs to know of the render. */
export interface DocumentFacts {
  tagged: boolean;
  /** The print had a header or footer template. */
  templates: boolean;
  metadata: PdfMetadata | null;
  /** The language the document declared (the request's lang given to it where it had none), '' for none, undefined when unknown. */
  declaredLang: string | undefined;
}

/** What a tagged PDF has and lacks of PDF/UA's document-level requirements, for the report. */
type Accessibility = RenderReport['accessibility'];

/** Whether `finishDocument` has anything to do for these facts. */
export const needsDocumentFinish = ({ tagged, metadata }: DocumentFacts): boolean => tagged || hasMetadata(metadata);

// `metadata: {}` or an empty title changes nothing, so the PDF stays Chromium's.
const hasMetadata = (metadata: PdfMetadata | null): boolean =>
  Boolean(metadata && Object.values(metadata).some((value) => value !== undefined && value !== null));

/** `pdf` with the document information and the accessible PDF's parts written in (see the top of this file). */
export async function finishDocument(
  pdf: Uint8Array,
  facts: DocumentFacts,
  signal: AbortSignal,
): Promise<{ pdf: Uint8Array; accessibility: Accessibility }> {
  const update = openPdfUpdate(pdf);
  const rootNumber = update && entryRef(update.trailer, 'Root');
  const catalog = rootNumber === undefined ? undefined : update!.dict(rootNumber);
  if (!update || rootNumber === undefined || !catalog) {
    // Not written as Chromium writes a PDF: the metadata asked for is not dropped without a word;
    // a tagged PDF without it stays as Chromium wrote it, and does not claim PDF/UA.
    if (hasMetadata(facts.metadata))
      throw new PdfRenderError('RENDER_PDF_FAILED', 'the PDF could not be read to write the metadata into it');
    return { pdf, accessibility: { tagged: facts.tagged, pdfua: false, missing: [] } };
  }
  const info = writeInformation(update, facts.metadata);
  if (!facts.tagged) return { pdf: update.bytes(), accessibility: { tagged: false, pdfua: false, missing: [] } };

  const title = info.get('Title') === undefined ? '' : decodeTextString(info.get('Title')!);
  // Chromium's catalog has a /Lang even for a document that declares none (the browser's own
  // locale), which the XMP does not repeat as if the document had said it.
  const lang = catalog.has('Lang') && facts.declaredLang !== '' ? decodeTextString(catalog.get('Lang')!) : '';
  if (title) catalog.set('ViewerPreferences', withDisplayDocTitle(update, catalog.get('ViewerPreferences')));
  const missing = [...(title ? [] : ['title' as const]), ...(lang ? [] : ['lang' as const])];
  // PDF/UA-1 requires dc:title (7.1): a document without one does not claim the identification.
  const pdfua = Boolean(title);
  const text = (key: string) => (info.has(key) ? decodeTextString(info.get(key)!) : undefined);
  const xmp = xmpPacket({
    title: title || undefined,
    author: text('Author'),
    subject: text('Subject'),
    keywords: text('Keywords'),
    creator: text('Creator'),
    producer: text('Producer'),
    creationDate: dateOf(info.get('CreationDate')),
    modifyDate: dateOf(info.get('ModDate')),
    lang: lang || undefined,
    ...(pdfua && { pdfua: 1 as const }),
  });
  const metadataNumber = update.allocate();
  update.set(metadataNumber, {
    dict: new Map([
      ['Type', '/Metadata'],
      ['Subtype', '/XML'],
    ]),
    data: Buffer.from(xmp, 'utf8'),
  });
  catalog.set('Metadata', `${metadataNumber} 0 R`);
  update.set(rootNumber, catalog);
  if (facts.templates) await markPageTemplates(update, entryRef(catalog, 'Pages'), signal);
  return { pdf: update.bytes(), accessibility: { tagged: true, pdfua, missing } };
}

// The request's metadata over Chromium's document information (its title from <title>, its
// producer and dates), as a new version of the Info dictionary; the dictionary as it now is.
function writeInformation(update: PdfUpdate, metadata: PdfMetadata | null): RawDict {
  const infoNumber = entryRef(update.trailer, 'Info');
  const info = (infoNumber !== undefined && update.dict(infoNumber)) || new Map<string, string>();
  if (!metadata) return info;
  const texts = {
    Title: metadata.title,
    Author: metadata.author,
    Subject: metadata.subject,
    Creator: metadata.creator,
  };
  for (const [key, value] of Object.entries(texts)) if (value) info.set(key, textString(value));
  // One entry: the keywords joined as the caller would read them ("a, b c"), not run together.
  if (metadata.keywords?.length) info.set('Keywords', textString(metadata.keywords.join(', ')));
  if (metadata.creationDate) info.set('CreationDate', pdfDate(metadata.creationDate));
  const number = infoNumber ?? update.allocate();
  update.set(number, info);
  update.trailer.set('Info', `${number} 0 R`);
  return info;
}

// The viewer preferences (written in the catalog or as an object of their own) with DisplayDocTitle on.
function withDisplayDocTitle(update: PdfUpdate, value: string | undefined): string {
  const number = entryRef(new Map([['ViewerPreferences', value ?? '']]), 'ViewerPreferences');
  const preferences = (number !== undefined ? update.dict(number) : value && readDict(value, 0).dict) || new Map();
  preferences.set('DisplayDocTitle', 'true');
  return writeDict(preferences);
}

// A PDF date ("D:20261126202425+00'00'") as a Date, or undefined when it is not one.
function dateOf(value: string | undefined): Date | undefined {
  const match =
    value && /D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(?:([+-])(\d{2})'?(\d{2})?'?|Z)?/.exec(value);
  if (!match) return undefined;
  const [, year, month = '01', day = '01', hour = '00', minute = '00', second = '00', sign, offHours, offMinutes] =
    match;
  const offset = sign ? `${sign}${offHours}:${offMinutes ?? '00'}` : 'Z';
  const date = new Date(`${year}-${month}-${day}T${hour}:${minute}:${second}${offset}`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

// Pages done between turns of the event loop: about 10 ms of the 50-page report's content.
const pagesPerTurn = 16;

// Every page's templates marked as artifacts: each page's content stream gets a new version.
async function markPageTemplates(
  update: PdfUpdate,
  pagesNumber: number | undefined,
  signal: AbortSignal,
): Promise<void> {
  const pending = pagesNumber === undefined ? [] : [pagesNumber];
  const seen = new Set<number>();
  while (pending.length > 0) {
    const number = pending.shift()!;
    if (seen.has(number)) continue;
    seen.add(number);
    const node = update.dict(number);
    if (!node) continue;
    if (node.get('Type') === '/Pages') {
      pending.push(...refNumbers(node.get('Kids')));
      continue;
    }
    if (seen.size % pagesPerTurn === 0) {
      // A document of thousands of pages does not hold the server's other requests up meanwhile.
      await new Promise(setImmediate);
      signal.throwIfAborted();
    }
    const contents = entryRef(node, 'Contents');
    const stream = contents === undefined ? undefined : update.streamData(contents);
    const marked = stream && markTemplates(stream.data.toString('latin1'));
    if (!marked) continue;
    const dict = new Map(stream.dict);
    dict.set('Filter', '/FlateDecode');
    update.set(contents!, { dict, data: nodeZlib().deflateSync(Buffer.from(marked, 'latin1')) });
  }
}
