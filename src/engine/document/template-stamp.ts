/**
 * A header and footer laid over pages printed without them. Chromium lays a request's templates
 * out again, in a document of their own, on every page it prints (about 4 ms of its CPU a page on
 * this project's machine, most of it for an empty template). A document whose templates repeat
 * those of earlier ones can instead be printed without templates, and the templates' own print (a
 * blank document of as many pages printed once, pages/print-stamp.ts, kept by template-stamps.ts)
 * laid over each page as a form XObject: the same drawing, from the same layout, in the same
 * place. Its objects (fonts, images, graphics states) are read once, when the stamp is prepared,
 * and copied into each PDF it is laid over as one small incremental update (pdf-update.ts),
 * without parsing the rest of the PDF.
 */
import { nodeZlib } from '../../lazy-module.js';
import { entryRef, openPdfUpdate, type PdfUpdate } from './pdf-update.js';
import { readDict, refNumbers, writeDict, type RawDict } from './pdf-syntax.js';

/** One object a stamp's pages refer to, with the references in its dictionary still the stamp's own numbers. */
interface StampObject {
  number: number;
  dict: string;
  /** A stream's bytes as written (its filter in `dict`). */
  data?: Buffer;
}

/** A stamp PDF read once, ready to lay over any PDF of as many pages of the same size. */
export interface PreparedStamp {
  /** Each page's drawing (deflated) and its resources dictionary (the stamp's own numbers). */
  pages: { content: Buffer; resources: string; mediaBox: string }[];
  objects: StampObject[];
  /** Bytes held, for the cache's bound. */
  bytes: number;
}

// The name the stamp has in each page's resources: none of Chromium's (/G3, /F5, /X7...).
const formName = 'PdfrenderTemplates';
const artifact = '/Artifact <</Type /Pagination>> BDC\n';

/** `stampPdf` (a print of the templates alone) read for laying over other PDFs, or undefined when it is not written as this reads. */
export function prepareStamp(stampPdf: Uint8Array): PreparedStamp | undefined {
  const stamp = openPdfUpdate(stampPdf);
  const pageNumbers = stamp && pageList(stamp);
  if (!stamp || !pageNumbers) return undefined;
  const objects = new Map<number, StampObject>();
  // Every object reachable from the pages' resources, the stamp's whole drawing needs.
  const copy = (text: string): boolean => {
    for (const number of referencesIn(text)) {
      if (objects.has(number)) continue;
      const stream = stamp.rawStream(number);
      const dict = stream ? writeDict(stream.dict) : stamp.text(number);
      if (dict === undefined) return false;
      objects.set(number, { number, dict, ...(stream && { data: Buffer.from(stream.data) }) });
      if (!copy(dict)) return false;
    }
    return true;
  };
  const pages: PreparedStamp['pages'] = [];
  for (const number of pageNumbers) {
    const page = stamp.dict(number);
    const resources = page && resourcesOf(stamp, page);
    const mediaBox = page?.get('MediaBox');
    if (!page || !resources || !mediaBox) return undefined;
    const parts = contentsOf(page).map((part) => stamp.streamData(part)?.data);
    if (parts.some((part) => part === undefined)) return undefined;
    const text = writeDict(resources);
    if (!copy(text)) return undefined;
    pages.push({ content: nodeZlib().deflateSync(Buffer.concat(parts as Buffer[])), resources: text, mediaBox });
  }
  const all = [...objects.values()];
  const bytes =
    all.reduce((sum, object) => sum + object.dict.length + (object.data?.length ?? 0), 0) +
    pages.reduce((sum, page) => sum + page.content.length + page.resources.length, 0);
  return { pages, objects: all, bytes };
}

/**
 * `pdf` with `stamp`'s pages laid over its own, page for page, as one incremental update; marked as
 * an artifact when the PDF is tagged (template-artifacts.ts says why). Undefined when the page
 * counts or sizes differ, or the PDF is not written as this reads: the caller then prints the
 * templates as Chromium does.
 */
export function layStamp(pdf: Uint8Array, stamp: PreparedStamp, tagged: boolean): Uint8Array | undefined {
  const update = openPdfUpdate(pdf);
  const pageNumbers = update && pageList(update);
  if (!update || pageNumbers?.length !== stamp.pages.length) return undefined;
  const pages = pageNumbers.map((number) => update.dict(number));
  if (pages.some((page, index) => page?.get('MediaBox') !== stamp.pages[index]!.mediaBox)) return undefined;
  const numbers = new Map(stamp.objects.map((object) => [object.number, update.allocate()]));
  const renumbered = (text: string) =>
    text.replace(reference, (_, number: string) => `${numbers.get(Number(number))} 0 R`);
  for (const object of stamp.objects) {
    const dict = readDict(renumbered(object.dict), 0).dict;
    update.set(numbers.get(object.number)!, object.data ? { dict, data: object.data } : dict);
  }
  // The page's own drawing in a q/Q pair of its own, so no state it leaves set (a clip, a matrix)
  // reaches the templates, which draw on the page as Chromium would after it.
  const open = update.allocate();
  update.set(open, { dict: new Map(), data: Buffer.from('q\n', 'latin1') });
  const draw = update.allocate();
  const operators = `Q\n${tagged ? artifact : ''}/${formName} Do\n${tagged ? 'EMC\n' : ''}`;
  update.set(draw, { dict: new Map(), data: Buffer.from(operators, 'latin1') });
  for (const [index, page] of pages.entries()) {
    const { content, resources, mediaBox } = stamp.pages[index]!;
    const form = update.allocate();
    update.set(form, {
      dict: new Map([
        ['Type', '/XObject'],
        ['Subtype', '/Form'],
        ['BBox', mediaBox],
        ['Resources', renumbered(resources)],
        ['Filter', '/FlateDecode'],
      ]),
      data: content,
    });
    const own = resourcesOf(update, page!);
    if (!own) return undefined;
    const xobjects = own.has('XObject') ? xobjectsOf(update, own.get('XObject')!) : new Map<string, string>();
    if (!xobjects || xobjects.has(formName)) return undefined;
    xobjects.set(formName, `${form} 0 R`);
    own.set('XObject', writeDict(xobjects));
    // Written into the page itself: a resources object may be shared with other pages.
    page!.set('Resources', writeDict(own));
    page!.set('Contents', `[${[open, ...contentsOf(page!), draw].map((number) => `${number} 0 R`).join(' ')}]`);
    update.set(pageNumbers[index]!, page!);
  }
  return update.bytes();
}

// References in a dictionary as Chromium writes them; its dictionaries hold no strings that could look like one.
const reference = /(\d+) 0 R\b/g;
const referencesIn = (text: string): number[] => [...text.matchAll(reference)].map((match) => Number(match[1]));

// The page objects in order, through the page tree; undefined when it is not there.
function pageList(update: PdfUpdate): number[] | undefined {
  const root = update.dict(entryRef(update.trailer, 'Root') ?? -1);
  const pages: number[] = [];
  const pending = [entryRef(root, 'Pages')];
  const seen = new Set<number>();
  while (pending.length > 0) {
    const number = pending.shift();
    if (number === undefined || seen.has(number)) return undefined;
    seen.add(number);
    const node = update.dict(number);
    if (!node) return undefined;
    if (node.get('Type') === '/Pages') pending.unshift(...refNumbers(node.get('Kids')));
    else pages.push(number);
  }
  return pages;
}

// A page's resources, written in it or an object of their own; undefined (no stamp, Chromium's
// templates instead) for a page that inherits them from its page tree, which Chromium does not write:
// a stamp's would be left behind, and a document page's hidden by resources written into it.
function resourcesOf(update: PdfUpdate, page: RawDict): RawDict | undefined {
  const value = page.get('Resources');
  if (value === undefined) return undefined;
  const number = entryRef(page, 'Resources');
  return number === undefined ? readDict(value, 0).dict : update.dict(number);
}

function xobjectsOf(update: PdfUpdate, value: string): RawDict | undefined {
  const number = entryRef(new Map([['XObject', value]]), 'XObject');
  return number === undefined ? readDict(value, 0).dict : update.dict(number);
}

// A page's content streams: one reference or an array of them.
const contentsOf = (page: RawDict): number[] => refNumbers(page.get('Contents'));
