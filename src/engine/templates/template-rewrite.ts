/**
 * Writing header and footer templates with what was fetched inlined and every other reference
 * emptied, so that nothing is left for Chromium to load: it prints a template without loading
 * anything, and fails the whole print over a style sheet or font it would have to wait for.
 *
 * Each distinct image is written once per template: `<img>` references get it through one style
 * rule (as their `content`, their src an image that loads, so that they are sized as in a page's
 * body: see `marker`), CSS references through one custom property (`var(--…)`), so an image
 * referenced sixty times costs one copy, not sixty. Chromium drops a custom property over 2 MiB,
 * so an image too big for one is written at each CSS reference of the template instead (and left
 * out of style sheets). A style sheet becomes a data: URL in place of its own, its images as
 * custom properties and what it imports as data: URLs in turn, so its rules keep their order,
 * media, layers and conditions exactly. A web font is written in place, as a data: URL, at each
 * `@font-face` that names it (a src cannot take a custom property); the engine has the page load
 * the same data: URLs before it prints, which is what makes Chromium use them in a template.
 */
import { PdfRenderError } from '../../errors.js';
import type { TemplateReference } from '../../markup/template-references.js';
import { megabytes } from './fetch-many.js';
import type { Crawled, Resolved } from './template-crawl.js';
import type { TemplateReport } from './template-report.js';

/** Bytes of style sheets one template may carry once inlined: Chromium lays them out again on every page. */
const maxTemplateStylesheetBytes = 1024 * 1024;
// Chromium ignores a custom property whose value is longer than 2 MiB (measured: 2.27 MB failed).
const maxVariableChars = 2_000_000;

interface Image {
  name: string;
  data: string;
  bytes: number;
}

// A piece of a style sheet as written: its own text, where an imported sheet goes, or a web font.
type Piece = string | { sheet: string } | { font: string };

/** The templates as rewritten, and the data: URLs of the web fonts written into them. */
export interface Rewritten {
  templates: string[];
  fonts: string[];
}

/**
 * The templates with their references inlined or emptied. Throws RENDER_PDF_FAILED when they
 * would carry more than `maxImageBytes` of images and fonts together, or a template more than
 * `maxTemplateStylesheetBytes` of style sheets (their fonts aside).
 */
export function rewriteTemplates(
  templates: string[],
  found: Resolved[][],
  crawled: Crawled,
  report: TemplateReport,
  maxImageBytes: number,
): Rewritten {
  const images = new Map(
    [...crawled.images].map(([href, { bytes, contentType }], index) => [
      href,
      {
        name: `--pdfrender-image-${index}`,
        data: `data:${safeMediaType(contentType)};base64,${Buffer.from(bytes).toString('base64')}`,
        bytes: bytes.byteLength,
      },
    ]),
  );
  const sheets = new StylesheetWriter(crawled, images, report);
  let carriedImages = 0;
  const fonts = new Set<string>();
  const rewritten = templates.map((html, index) => {
    const references = found[index]!;
    const imageOf = (href: string | null) => (href === null ? undefined : images.get(href));
    const linked = references
      .filter(({ reference, href }) => reference.kind === 'stylesheet' && href !== null && sheets.has(href))
      .map(({ href }) => href!);
    const stylesheetBytes = linked.reduce((sum, href) => sum + dataUrlBytes(sheets.size(href)), 0);
    if (stylesheetBytes > maxTemplateStylesheetBytes) {
      throw new PdfRenderError(
        'RENDER_PDF_FAILED',
        `a header or footer template's style sheets come to ${megabytes(stylesheetBytes)} MB inlined, more than the ${megabytes(maxTemplateStylesheetBytes)} MB limit for one template`,
        { documentFault: true },
      );
    }
    // Images the template defines once: its <img>s, its CSS references that fit a custom property, its style sheets' images.
    const inImg = new Set(
      references.filter(({ reference, href }) => reference.kind === 'img' && imageOf(href)).map(({ href }) => href!),
    );
    const inVariables = new Set([
      ...references
        .filter(({ reference, href }) => reference.kind === 'css' && imageOf(href) && !tooBig(imageOf(href)!))
        .map(({ href }) => href!),
      ...linked.flatMap((href) => [...sheets.images(href)]),
    ]);
    const eachTime = references.filter(
      ({ reference, href }) => reference.kind === 'css' && imageOf(href) && tooBig(imageOf(href)!),
    );
    // A font is written at each @font-face that names it, in the template and in its style sheets.
    const fontHrefs = [
      ...references
        .filter(({ reference, href }) => reference.kind === 'font' && imageOf(href))
        .map(({ href }) => href!),
      ...linked.flatMap((href) => sheets.fonts(href)),
    ];
    for (const href of fontHrefs) fonts.add(images.get(href)!.data);
    carriedImages +=
      [...new Set([...inImg, ...inVariables])].reduce((sum, href) => sum + images.get(href)!.bytes, 0) +
      [...eachTime.map(({ href }) => href!), ...fontHrefs].reduce((sum, href) => sum + images.get(href)!.bytes, 0);
    const replacement = ({ reference, href }: Resolved): string => {
      const image = imageOf(href);
      if (reference.kind === 'img' && image) return `"${marker(image.name)}"`;
      if (reference.kind === 'css' && image) return tooBig(image) ? `url(${image.data})` : `var(${image.name})`;
      if (reference.kind === 'font' && image) return inSyntax(reference, image.data);
      if (reference.kind === 'stylesheet' && href !== null && sheets.has(href))
        return inSyntax(reference, sheetData(sheets.text(href)));
      return emptied(reference);
    };
    const imageRules = [...inImg]
      .map((href) => `img[src="${marker(images.get(href)!.name)}"]{content:url("${images.get(href)!.data}")}`)
      .join('');
    const definitions = [...inVariables]
      .map((href) => `${images.get(href)!.name}:url("${images.get(href)!.data}");`)
      .join('');
    return splice(
      html,
      references,
      replacement,
      imageRules || definitions ? `<style>:root{${definitions}}${imageRules}</style>` : '',
    );
  });
  if (carriedImages > maxImageBytes) {
    throw new PdfRenderError(
      'RENDER_PDF_FAILED',
      `the header and footer would carry ${megabytes(carriedImages)} MB of images and fonts, more than the ${megabytes(maxImageBytes)} MB limit for one request (a font, and an image over ${megabytes((maxVariableChars * 3) / 4)} MB, counts once for each url() that refers to it)`,
      { documentFault: true },
    );
  }
  return { templates: rewritten, fonts: [...fonts] };
}

/** The fetched style sheets as they are inlined: each planned once, sized before it is written. */
class StylesheetWriter {
  private readonly plans = new Map<string, Piece[]>();
  private readonly planning = new Set<string>();
  private readonly sizes = new Map<string, number>();
  private readonly texts = new Map<string, string>();
  private readonly imageSets = new Map<string, Set<string>>();
  private readonly fontLists = new Map<string, string[]>();

  constructor(
    private readonly crawled: Crawled,
    private readonly inlined: Map<string, Image>,
    private readonly report: TemplateReport,
  ) {}

  has(href: string): boolean {
    return this.crawled.sheets.has(href);
  }

  /** Bytes of the sheet once inlined, its imports included and its fonts aside, computed without writing it (shared imports would multiply). */
  size(href: string): number {
    const known = this.sizes.get(href);
    if (known !== undefined) return known;
    const size = this.plan(href).reduce(
      (sum, piece) =>
        sum +
        (typeof piece === 'string'
          ? Buffer.byteLength(piece)
          : 'sheet' in piece
            ? dataUrlBytes(this.size(piece.sheet))
            : 0),
      0,
    );
    this.sizes.set(href, size);
    return size;
  }

  /** The sheet's text as inlined. */
  text(href: string): string {
    const known = this.texts.get(href);
    if (known !== undefined) return known;
    const text = this.plan(href)
      .map((piece) =>
        typeof piece === 'string'
          ? piece
          : 'sheet' in piece
            ? `url(${sheetData(this.text(piece.sheet))})`
            : `url(${this.inlined.get(piece.font)!.data})`,
      )
      .join('');
    this.texts.set(href, text);
    return text;
  }

  /** The images the sheet and its imports use through custom properties, which the template must define. */
  images(href: string): Set<string> {
    const known = this.imageSets.get(href);
    if (known) return known;
    const sheet = this.crawled.sheets.get(href)!;
    const own = sheet.references
      .filter(({ reference, href: target }) => reference.kind === 'css' && target !== null && this.usable(target))
      .map(({ href: target }) => target!);
    const imported = this.plan(href).flatMap((piece) =>
      typeof piece === 'object' && 'sheet' in piece ? [...this.images(piece.sheet)] : [],
    );
    const images = new Set([...own, ...imported]);
    this.imageSets.set(href, images);
    return images;
  }

  /** The web fonts the sheet and its imports write, once for each time one is written. */
  fonts(href: string): string[] {
    const known = this.fontLists.get(href);
    if (known) return known;
    const fonts = this.plan(href).flatMap((piece) =>
      typeof piece === 'string' ? [] : 'sheet' in piece ? this.fonts(piece.sheet) : [piece.font],
    );
    this.fontLists.set(href, fonts);
    return fonts;
  }

  private usable(image: string): boolean {
    const found = this.inlined.get(image);
    return found !== undefined && !tooBig(found);
  }

  // The sheet split at its references; an import that leads back to a sheet being planned is emptied.
  private plan(href: string): Piece[] {
    const known = this.plans.get(href);
    if (known) return known;
    this.planning.add(href);
    const { text, references } = this.crawled.sheets.get(href)!;
    const pieces: Piece[] = [];
    let position = 0;
    for (const { reference, href: target } of references) {
      pieces.push(text.slice(position, reference.start), this.piece(reference, target, href));
      position = reference.end;
    }
    pieces.push(text.slice(position));
    this.planning.delete(href);
    this.plans.set(href, pieces);
    return pieces;
  }

  private piece(reference: TemplateReference, target: string | null, from: string): Piece {
    if (target === null) return emptied(reference);
    if (reference.kind === 'stylesheet') {
      if (!this.has(target)) return emptied(reference);
      if (this.planning.has(target)) {
        this.report.add(
          'failed',
          { url: target, code: 'LOAD_FAILED', reason: 'imported by a style sheet it imports' },
          'stylesheet',
          from,
        );
        return emptied(reference);
      }
      this.plan(target);
      return { sheet: target };
    }
    const image = this.inlined.get(target);
    if (!image) return emptied(reference);
    if (reference.kind === 'font') return { font: target };
    if (tooBig(image)) {
      this.report.add(
        'failed',
        {
          url: target,
          code: 'LOAD_FAILED',
          reason: `too big to inline from a style sheet (over ${megabytes((maxVariableChars * 3) / 4)} MB)`,
        },
        'image',
        from,
      );
      return emptied(reference);
    }
    return `var(${image.name})`;
  }
}

// `html` with each reference replaced, after `prefix`.
function splice(
  html: string,
  references: Resolved[],
  replacement: (resolved: Resolved) => string,
  prefix: string,
): string {
  if (references.length === 0) return html;
  const parts = [prefix];
  let position = 0;
  for (const resolved of references) {
    parts.push(html.slice(position, resolved.reference.start), replacement(resolved));
    position = resolved.reference.end;
  }
  parts.push(html.slice(position));
  return parts.join('');
}

// A URL in the reference's own syntax; none of ours needs quoting in CSS (base64 and a plain media type).
const inSyntax = (reference: TemplateReference, url: string) =>
  reference.syntax === 'attribute' ? `"${url}"` : `url(${url})`;

// A reference that loads nothing, valid wherever the original was (an empty attribute, an empty url()).
const emptied = (reference: TemplateReference) => inSyntax(reference, '');

const sheetData = (css: string) => `data:text/css;base64,${Buffer.from(css).toString('base64')}`;

// Bytes of a style sheet of `bytes` as an inlined url(data:...).
const dataUrlBytes = (bytes: number) => 'url(data:text/css;base64,)'.length + 4 * Math.ceil(bytes / 3);

const tooBig = (image: Image) => image.data.length > maxVariableChars;

// The src an inlined <img> gets: a transparent 1x1 GIF, named after its image by a fragment.
// It must be an image that loads: an <img> whose src fails is a broken image, and Chromium then
// lays the content: url() image out at its natural size inside a block, whatever the <img>'s
// height attribute, style or class rule says (measured on Chromium 156: a 240x80 logo sized 20px
// high printed 80px high); with a src that loads, it is sized exactly as the same <img> with the
// image itself as its src, as in a page's body. A src carrying the image is that too, but once
// per <img>: a logo sixty times over would be written sixty times. The cost: a fetched file that
// is no image prints as an empty box of the <img>'s size, not as its alt text.
const marker = (name: string) => `${transparentGif}#${name.slice(2)}`;
const transparentGif = 'data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7';

// A media type as a data: URI may carry it; anything else (a server's odd Content-Type) is dropped.
function safeMediaType(type: string): string {
  return /^[\w.+-]+\/[\w.+-]+$/.test(type) ? type : 'application/octet-stream';
}
