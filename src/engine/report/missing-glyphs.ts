/**
 * Characters no available font could draw, by script. Chromium writes the right text even where it
 * draws an empty box: the box is glyph 0 (.notdef) of the font it fell back to last, and the text
 * is kept beside it (the font's ToUnicode entry for glyph 0, or an /ActualText span). So the PDF is
 * where a missing glyph shows, and that is where it is looked for, not in the HTML.
 *
 * Reading every PDF would cost every render a parse; most documents cannot have a missing glyph at
 * all, since every character they use is in a font installed here (fontconfig's coverage, read
 * once per process). Only a document with a character outside it (a private-use icon, a script with
 * no font installed) has its PDF read, and only its text-drawing operators.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { PDFDict as PDFDictType } from '@cantoo/pdf-lib';
import { scanHtml } from '../../markup/html-tags.js';
import type { RenderRequest } from '../../request.js';
import { reportBounds, type Place, type RenderReport } from './render-report.js';

type MissingGlyphs = RenderReport['missingGlyphs'];

/** Sorted, disjoint ranges of code points, as fontconfig gives a font's charset. */
type Ranges = Array<[number, number]>;

/** The code points installed fonts have, asked for when first needed (and kept by the engine). */
export type Coverage = () => Promise<Ranges | null>;

/**
 * The code points some installed font has a glyph for (the union of fontconfig's charsets); null
 * where fontconfig cannot be asked (then every character beyond ASCII is looked for in the PDF).
 */
export function readCoverage(): Promise<Ranges | null> {
  return promisify(execFile)('fc-list', ['--format', '%{charset}\n'], { maxBuffer: 64 * 1024 * 1024 })
    .then(({ stdout }) => mergeRanges(stdout))
    .catch(() => null);
}

/** A Coverage that reads fontconfig once, the first time it is asked. */
export function coverageOnce(): Coverage {
  let read: Promise<Ranges | null> | undefined;
  return () => (read ??= readCoverage());
}

/** The union of fontconfig charsets, one per line ("20-7e a0-17f 192 ..."). */
export function mergeRanges(charsets: string): Ranges {
  const all: Ranges = [];
  for (const token of charsets.split(/\s+/)) {
    if (!token) continue;
    const [from, to] = token.split('-');
    const start = Number.parseInt(from!, 16);
    const end = to === undefined ? start : Number.parseInt(to, 16);
    if (Number.isFinite(start) && Number.isFinite(end)) all.push([start, end]);
  }
  all.sort((a, b) => a[0] - b[0]);
  const merged: Ranges = [];
  for (const range of all) {
    const last = merged.at(-1);
    if (last && range[0] <= last[1] + 1) last[1] = Math.max(last[1], range[1]);
    else merged.push([range[0], range[1]]);
  }
  return merged;
}

function covers(ranges: Ranges, codePoint: number): boolean {
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const [start, end] = ranges[middle]!;
    if (codePoint < start) high = middle - 1;
    else if (codePoint > end) low = middle + 1;
    else return true;
  }
  return false;
}

// Characters that draw no glyph of their own: spaces, controls, joiners, variation selectors.
const drawsNothing = /[\p{Cc}\p{Cf}\p{Z}\u{FE00}-\u{FE0F}\u{E0100}-\u{E01EF}]/u;

/** The characters of `text` no installed font has: those that may be drawn as empty boxes. */
export function uncovered(text: string, coverage: Ranges | null): string[] {
  const found: string[] = [];
  for (const ch of new Set(text)) {
    const codePoint = ch.codePointAt(0)!;
    if (codePoint <= 0x7e || drawsNothing.test(ch)) continue;
    if (!coverage || !covers(coverage, codePoint)) found.push(ch);
  }
  return found;
}

/** What a PDF draws: how many empty boxes (.notdef), the text of those in /ActualText spans, and every character some font drew a real glyph for. */
export interface GlyphUse {
  notdefs: number;
  /** The characters an /ActualText span gives an empty box (Chromium writes the first box of a font without one). */
  named: Set<string>;
  /** The characters fonts' ToUnicode maps give their real glyphs (every font Chromium embeds has one). */
  drawn: Set<string>;
}

/** The largest PDF read for missing glyphs; a larger one is reported as not checked. */
export const maxGlyphCheckBytes = 32 * 1024 * 1024;

/**
 * Read what `pdf` draws from its text-drawing operators and its fonts' ToUnicode maps. It gives the
 * event loop back between pages (and while pdf-lib parses), so a long PDF does not stall what else
 * the process serves; `signal` ends it (the render's deadline).
 */
export async function glyphUse(pdf: Uint8Array, signal?: AbortSignal): Promise<GlyphUse> {
  const lib = await import('@cantoo/pdf-lib');
  const { PDFDocument, PDFName, PDFDict, PDFArray, PDFRawStream, PDFStream, decodePDFRawStream } = lib;
  const document = await PDFDocument.load(pdf, {
    updateMetadata: false,
    throwOnInvalidObject: false,
    // Objects parsed between two turns of the event loop (ParseSpeeds.Medium).
    parseSpeed: 500,
  });
  const use: GlyphUse = { notdefs: 0, named: new Set(), drawn: new Set() };
  const streamBytes = (stream: unknown): Uint8Array | undefined =>
    stream instanceof PDFRawStream ? decodePDFRawStream(stream).decode() : undefined;
  const lookup = (dict: PDFDictType, key: string) => document.context.lookup(dict.get(PDFName.of(key)));
  // Fonts of two-byte glyph ids (Type0), whose glyph 0 is the empty box; a Type3 font's glyphs are pictures.
  const twoByte = new Map<PDFDictType, boolean>();
  const isTwoByte = (font: PDFDictType) => {
    if (!twoByte.has(font)) {
      twoByte.set(font, lookup(font, 'Subtype') === PDFName.of('Type0'));
      const cmap = streamBytes(lookup(font, 'ToUnicode'));
      if (cmap)
        for (const text of cmapTexts(Buffer.from(cmap).toString('latin1'))) for (const ch of text) use.drawn.add(ch);
    }
    return twoByte.get(font)!;
  };
  const scan = (content: Uint8Array, resources: PDFDictType | undefined, depth: number) => {
    const fonts = resources && lookup(resources, 'Font');
    const xobjects = resources && lookup(resources, 'XObject');
    const source = Buffer.from(content).toString('latin1');
    let font: PDFDictType | undefined;
    let actual: string | null = null;
    const operator =
      /\/Span\s*<<\s*\/ActualText\s*<([0-9A-Fa-f]*)>\s*>>\s*BDC|\bEMC\b|\/([^\s/<>[\]()]+)\s+[-\d.]+\s+Tf\b|<([0-9A-Fa-f]*)>|\/([^\s/<>[\]()]+)\s+Do\b/g;
    for (let match = operator.exec(source); match; match = operator.exec(source)) {
      const [all, span, fontName, hex, xobject] = match;
      if (span !== undefined) actual = utf16(span);
      else if (all === 'EMC') actual = null;
      else if (fontName !== undefined) {
        const named = fonts instanceof PDFDict ? document.context.lookup(fonts.get(PDFName.of(fontName))) : undefined;
        font = named instanceof PDFDict ? named : undefined;
      } else if (hex !== undefined && font && isTwoByte(font)) {
        for (let at = 0; at + 4 <= hex.length; at += 4) {
          if (hex.slice(at, at + 4) !== '0000') continue;
          use.notdefs += 1;
          for (const ch of actual ?? '') use.named.add(ch);
        }
      } else if (xobject !== undefined && xobjects instanceof PDFDict && depth < 4) {
        const form = document.context.lookup(xobjects.get(PDFName.of(xobject)));
        if (form instanceof PDFStream && form.dict.get(PDFName.of('Subtype')) === PDFName.of('Form')) {
          const bytes = streamBytes(form);
          const own = document.context.lookup(form.dict.get(PDFName.of('Resources')));
          if (bytes) scan(bytes, own instanceof PDFDict ? own : resources, depth + 1);
        }
      }
    }
  };
  for (const page of document.getPages()) {
    await new Promise(setImmediate);
    signal?.throwIfAborted();
    const contents = page.node.Contents();
    const streams =
      contents instanceof PDFArray ? contents.asArray().map((ref) => document.context.lookup(ref)) : [contents];
    const bytes = streams.map(streamBytes).filter((part): part is Uint8Array => part !== undefined);
    scan(Buffer.concat(bytes.map((part) => Buffer.from(part))), page.node.Resources(), 0);
  }
  // Every font's map, drawn in a form or not (Type3 fonts too: their glyphs draw real characters).
  for (const [, object] of document.context.enumerateIndirectObjects())
    if (object instanceof PDFDict && object.get(PDFName.of('Type')) === PDFName.of('Font')) isTwoByte(object);
  return use;
}

// The texts a ToUnicode CMap gives its glyphs other than glyph 0: each bfchar "<src> <dst>", each
// glyph of a bfrange "<lo> <hi> <dst>" (counting up) or "<lo> <hi> [<dst> ...]".
function cmapTexts(source: string): string[] {
  const texts: string[] = [];
  for (const section of source.matchAll(/begin(bfchar|bfrange)([\s\S]*?)end\1/g)) {
    const tokens = [...section[2]!.matchAll(/<([0-9A-Fa-f]*)>|\[|\]/g)].map((match) => match[1] ?? match[0]);
    for (let at = 0; at < tokens.length;) {
      const low = Number.parseInt(tokens[at]!, 16);
      if (section[1] === 'bfchar') {
        if (low !== 0) texts.push(utf16(tokens[at + 1] ?? ''));
        at += 2;
        continue;
      }
      const high = Math.min(Number.parseInt(tokens[at + 1] ?? '0', 16), low + 0xffff);
      if (tokens[at + 2] === '[') {
        at += 3;
        for (let glyph = low; at < tokens.length && tokens[at] !== ']'; glyph += 1, at += 1)
          if (glyph !== 0) texts.push(utf16(tokens[at]!));
        at += 1;
      } else {
        const first = utf16(tokens[at + 2] ?? '');
        const codePoint = first.codePointAt(0);
        if (codePoint !== undefined)
          for (let glyph = Math.max(low, 1); glyph <= high; glyph += 1)
            texts.push(String.fromCodePoint(Math.min(codePoint + glyph - low, 0x10ffff)));
        at += 3;
      }
    }
  }
  return texts;
}

// A hex string of UTF-16BE (with or without its byte order mark) as text.
function utf16(hex: string): string {
  const bytes = Buffer.from(hex.length % 2 === 0 ? hex : `${hex}0`, 'hex');
  const body = bytes[0] === 0xfe && bytes[1] === 0xff ? bytes.subarray(2) : bytes;
  return Buffer.from(body).swap16().toString('utf16le');
}

/** Whether any of `texts` has a character beyond ASCII, or a character reference that may stand for one. */
export function mayDrawBeyondAscii(texts: ReadonlyArray<string | null>): boolean {
  return texts.some((text) => text !== null && /[\u007f-\uffff]|&#/.test(text));
}

/** Whether the request's own HTML (document and templates) may draw a character beyond ASCII; a page at a URL may. */
export function requestMayDrawBeyondAscii(request: RenderRequest): boolean {
  const { htmlContent, headerHtmlContent, footerHtmlContent } = request;
  const { firstPageHeaderHtmlContent, firstPageFooterHtmlContent } = request;
  return (
    request.url !== null ||
    mayDrawBeyondAscii([
      htmlContent,
      headerHtmlContent,
      footerHtmlContent,
      firstPageHeaderHtmlContent,
      firstPageFooterHtmlContent,
    ])
  );
}

/** Where each candidate character occurs. */
export type Candidates = Map<string, Set<Place>>;

/**
 * The characters that may be drawn as empty boxes, and where: the body's (read from the page) and
 * the templates' (their HTML's text, character references included), less what installed fonts have.
 */
export async function glyphCandidates(texts: Record<Place, string[]>, installed: Coverage): Promise<Candidates> {
  // Nothing beyond ASCII, nothing to ask fontconfig about.
  if (!mayDrawBeyondAscii(Object.values(texts).flat())) return new Map();
  const coverage = await installed();
  const candidates: Candidates = new Map();
  for (const [place, parts] of Object.entries(texts) as Array<[Place, string[]]>)
    for (const ch of uncovered(parts.map((part) => (place === 'body' ? part : markupText(part))).join(''), coverage))
      candidates.set(ch, (candidates.get(ch) ?? new Set<Place>()).add(place));
  return candidates;
}

// A template's text: its tags left out (read by the markup scanner, linear in the text whatever it
// holds; a regular expression per tag was quadratic on a run of "<"), numeric character references
// read. Style sheets' and scripts' text stay in: at worst a candidate more, which the PDF settles.
function markupText(html: string): string {
  const parts: string[] = [];
  let at = 0;
  for (const tag of scanHtml(html).tags) {
    parts.push(html.slice(at, tag.start));
    at = tag.end;
  }
  parts.push(html.slice(at));
  return parts.join(' ').replace(/&#(x[0-9a-f]+|[0-9]+);?/gi, (reference, number: string) => {
    const codePoint = number[0]!.toLowerCase() === 'x' ? Number.parseInt(number.slice(1), 16) : Number(number);
    return codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : reference;
  });
}

/**
 * The report's missing glyphs: `candidates` (characters no installed font has, and where they
 * occur) that the PDF really draws as empty boxes, grouped by script; nothing when there is no
 * candidate, without reading the PDF. Why it could not be checked, when it could not.
 */
export async function missingGlyphs(
  pdf: Uint8Array,
  candidates: Candidates,
  signal?: AbortSignal,
): Promise<{ missing: MissingGlyphs } | { unchecked: string }> {
  if (candidates.size === 0) return { missing: [] };
  if (pdf.byteLength > maxGlyphCheckBytes)
    return {
      unchecked: `the PDF is larger than ${maxGlyphCheckBytes / 1024 / 1024} MB, past what is read for this check`,
    };
  let use: GlyphUse;
  try {
    use = await glyphUse(pdf, signal);
  } catch (error) {
    return {
      unchecked: signal?.aborted
        ? "reading the PDF took longer than the render's deadline"
        : `the PDF could not be read (${error instanceof Error ? error.message.split('\n', 1)[0]!.slice(0, 200) : 'unknown error'})`,
    };
  }
  if (use.notdefs === 0) return { missing: [] };
  // The boxes' own text where Chromium wrote it, and every candidate no font drew a real glyph for.
  const missing = new Set([...use.named, ...[...candidates.keys()].filter((ch) => !use.drawn.has(ch))]);
  const groups = new Map<string, { characters: string[]; where: Set<Place> }>();
  for (const ch of missing) {
    if (drawsNothing.test(ch)) continue;
    const script = scriptOf(ch);
    const group = groups.get(script) ?? { characters: [], where: new Set<Place>() };
    groups.set(script, group);
    group.characters.push(ch);
    for (const place of candidates.get(ch) ?? []) group.where.add(place);
  }
  const places: Place[] = ['body', 'header', 'footer'];
  return {
    missing: [...groups.entries()]
      .sort((a, b) => b[1].characters.length - a[1].characters.length)
      .slice(0, reportBounds.scripts)
      .map(([script, group]) => ({
        script,
        count: group.characters.length,
        characters: group.characters.slice(0, reportBounds.charactersPerScript).join(''),
        where: places.filter((place) => group.where.has(place)),
      })),
  };
}

// Scripts a document is written in, as Unicode names them; tried in turn, the first that matches
// names the character. Their patterns are made on the first character that needs one: 55 Unicode
// property sets cost a cold render ~2 ms of CPU, and most documents name no missing glyph.
const scriptNames = [
  'Latin',
  'Greek',
  'Cyrillic',
  'Armenian',
  'Hebrew',
  'Arabic',
  'Syriac',
  'Thaana',
  'Nko',
  'Devanagari',
  'Bengali',
  'Gurmukhi',
  'Gujarati',
  'Oriya',
  'Tamil',
  'Telugu',
  'Kannada',
  'Malayalam',
  'Sinhala',
  'Thai',
  'Lao',
  'Tibetan',
  'Myanmar',
  'Georgian',
  'Hangul',
  'Ethiopic',
  'Cherokee',
  'Canadian_Aboriginal',
  'Mongolian',
  'Khmer',
  'Hiragana',
  'Katakana',
  'Bopomofo',
  'Han',
  'Yi',
  'Javanese',
  'Balinese',
  'Sundanese',
  'Tifinagh',
  'Vai',
  'Bamum',
  'Adlam',
  'Meetei_Mayek',
  'Ol_Chiki',
  'Egyptian_Hieroglyphs',
  'Cuneiform',
  'Runic',
  'Ogham',
  'Gothic',
  'Coptic',
  'Glagolitic',
];
let scripts: ReadonlyArray<readonly [string, RegExp]> | undefined;

/** The Unicode script of `ch`, or what it is when it belongs to none (an emoji, a private-use icon). */
export function scriptOf(ch: string): string {
  scripts ??= scriptNames.map((name) => [name.replaceAll('_', ' '), new RegExp(`\\p{Script=${name}}`, 'u')] as const);
  for (const [name, pattern] of scripts) if (pattern.test(ch)) return name;
  if (/\p{Co}/u.test(ch)) return 'Private use';
  if (/\p{Extended_Pictographic}/u.test(ch)) return 'Emoji';
  if (/\p{Cn}/u.test(ch)) return 'Unassigned';
  return 'Symbols and punctuation';
}
