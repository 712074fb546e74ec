/**
 * Reading the PDFs that tests produce: page sizes in points, text per page with positions and
 * font sizes, outline and tagging, images and fill colours, through pdfjs (Mozilla's PDF reader).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { getDocument, OPS } from 'pdfjs-dist/legacy/build/pdf.mjs';

// The 14 standard fonts' data, for PDFs that name one without embedding it (pdfjs warns otherwise).
const standardFontDataUrl = join(
  dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json')),
  'standard_fonts/',
);

/** Open a PDF with pdfjs, which transfers (detaches) the buffer it is given: it gets a copy. */
const open = (data: Uint8Array, options: { useSystemFonts?: boolean } = {}) =>
  getDocument({ data: new Uint8Array(data), isEvalSupported: false, standardFontDataUrl, ...options }).promise;

export interface TextItem {
  text: string;
  /** Left edge and baseline, in points from the page's bottom-left corner. */
  x: number;
  y: number;
  /** Font size in points as printed (the text matrix's vertical scale). */
  fontSize: number;
  /** Advance width in points, so `x + width` is the right edge of left-to-right text. */
  width: number;
}

export interface PdfPage {
  width: number;
  height: number;
  text: string;
  items: TextItem[];
}

export interface PdfSummary {
  pages: PdfPage[];
  outline: string[];
  tagged: boolean;
  fontNames: string[];
}

/** Parse a PDF and read what tests assert on. */
export async function readPdf(data: Uint8Array): Promise<PdfSummary> {
  const document = await open(data, { useSystemFonts: false });
  try {
    const pages: PdfPage[] = [];
    const fontNames = new Set<string>();
    for (let number = 1; number <= document.numPages; number += 1) {
      const page = await document.getPage(number);
      const [x0, y0, x1, y1] = page.view as [number, number, number, number];
      const content = await page.getTextContent();
      const items = content.items
        .filter((item): item is Extract<typeof item, { str: string }> => 'str' in item && item.str.trim() !== '')
        .map((item) => ({
          text: item.str,
          x: item.transform[4],
          y: item.transform[5],
          fontSize: Math.hypot(item.transform[2], item.transform[3]),
          width: item.width,
        }));
      for (const style of Object.values(content.styles)) fontNames.add(style.fontFamily);
      await page.getOperatorList(); // loads the fonts, so their names are known below
      for (const key of Object.keys(content.styles)) {
        const font = page.commonObjs.has(key) ? page.commonObjs.get(key) : null;
        if (font?.name) fontNames.add(font.name);
      }
      pages.push({ width: x1 - x0, height: y1 - y0, text: items.map((i) => i.text).join(' '), items });
    }
    const outline = ((await document.getOutline()) ?? []).flatMap(function titles(node): string[] {
      return [node.title, ...(node.items ?? []).flatMap(titles)];
    });
    const markInfo = await document.getMarkInfo();
    return { pages, outline, tagged: Boolean(markInfo?.Marked), fontNames: [...fontNames] };
  } finally {
    await document.destroy();
  }
}

/**
 * A page's text top to bottom, left to right, as a reader sees it (`text` is in the order it was
 * drawn). Items are joined with a space, but none before punctuation: pdfjs splits a line into items
 * where the font's kerning moves a glyph (Noto Sans's comma after "header"), not only at spaces.
 */
export const readingOrder = (page: PdfPage): string =>
  [...page.items]
    .sort((a, b) => b.y - a.y || a.x - b.x)
    .map((item) => item.text)
    .join(' ')
    .replace(/ ([,.;:!?])/g, '$1');

/** The document information dictionary (Title, Author, Subject, Keywords, Creator, CreationDate as PDF dates, Producer). */
export async function readPdfInfo(data: Uint8Array): Promise<Record<string, string>> {
  const document = await open(data);
  try {
    return (await document.getMetadata()).info as Record<string, string>;
  } finally {
    await document.destroy();
  }
}

/** Fill colours (as "#rrggbb") and the number of images painted on one page. */
export async function readPaint(
  data: Uint8Array,
  pageNumber = 1,
): Promise<{ fillColors: Set<string>; images: number }> {
  const document = await open(data);
  try {
    const page = await document.getPage(pageNumber);
    const operators = await page.getOperatorList();
    const fillColors = new Set<string>();
    let images = 0;
    operators.fnArray.forEach((fn, index) => {
      if (fn === OPS.setFillRGBColor) fillColors.add(String(operators.argsArray[index]?.[0]).toLowerCase());
      if (fn === OPS.paintImageXObject || fn === OPS.paintInlineImageXObject) images += 1;
    });
    return { fillColors, images };
  } finally {
    await document.destroy();
  }
}

/** Points per unit, to state expected page sizes the way a person would. */
export const pt = { in: 72, mm: 72 / 25.4, cm: 72 / 2.54, px: 0.75, pc: 12, pt: 1 } as const;

/** The glyphs drawn on a page, per font: how many, and how many are the font's .notdef (an empty box). */
export interface DrawnFont {
  /** The embedded font's name (a subset's, "AAAAAA+NotoSansCJKjp-Regular"). */
  name: string;
  /** Glyphs whose pictures are in the PDF itself (Type 3): colour emoji are drawn this way. */
  type3: boolean;
  glyphs: number;
  /** Glyphs drawn as glyph 0, .notdef: the empty box Chromium draws for a character no font has. Its extracted text is still right. */
  notdef: number;
}

/**
 * What each font drew on every page. A character no installed font could draw is written with the
 * fallback font's glyph 0 (in the Identity-H encoding Chromium uses, the character code is the
 * glyph id), while its text (ToUnicode) stays right, so text extraction alone proves nothing.
 */
export async function readGlyphs(data: Uint8Array): Promise<DrawnFont[]> {
  const document = await open(data);
  const fonts = new Map<string, DrawnFont>();
  try {
    for (let number = 1; number <= document.numPages; number += 1) {
      const page = await document.getPage(number);
      const operators = await page.getOperatorList();
      let current: DrawnFont | undefined;
      operators.fnArray.forEach((fn, index) => {
        const args = operators.argsArray[index] as unknown[];
        if (fn === OPS.setFont) {
          const id = String(args[0]);
          const font = page.commonObjs.get(id) as { name?: string; isType3Font?: boolean };
          const name = font.name ?? id;
          current = fonts.get(name) ?? { name, type3: Boolean(font.isType3Font), glyphs: 0, notdef: 0 };
          fonts.set(name, current);
        }
        if (fn === OPS.showText && current) {
          for (const glyph of args[0] as Array<{ originalCharCode?: number } | number | null>) {
            if (!glyph || typeof glyph !== 'object') continue;
            current.glyphs += 1;
            if (glyph.originalCharCode === 0 && !current.type3) current.notdef += 1;
          }
        }
      });
    }
    return [...fonts.values()];
  } finally {
    await document.destroy();
  }
}

/** Each piece of text of every page with the PostScript name of the font that drew it (a subset's prefix dropped). */
export async function readTextFonts(data: Uint8Array): Promise<Array<{ text: string; font: string }>> {
  const document = await open(data, { useSystemFonts: false });
  try {
    const drawn: Array<{ text: string; font: string }> = [];
    for (let number = 1; number <= document.numPages; number += 1) {
      const page = await document.getPage(number);
      const content = await page.getTextContent();
      await page.getOperatorList(); // loads the fonts, so their names are known below
      for (const item of content.items) {
        if (!('str' in item) || item.str.trim() === '') continue;
        const font = page.commonObjs.has(item.fontName) ? page.commonObjs.get(item.fontName) : null;
        drawn.push({ text: item.str, font: String(font?.name ?? item.fontName).replace(/^[A-Z]{6}\+/, '') });
      }
    }
    return drawn;
  } finally {
    await document.destroy();
  }
}

/** An image as painted on a page: its box in points from the page's bottom-left corner, and its pixels. */
export interface PaintedImage {
  x: number;
  y: number;
  width: number;
  height: number;
  /** The image's own size in pixels. */
  pixels: { width: number; height: number };
}

type Matrix = [number, number, number, number, number, number];
const multiply = (m: Matrix, n: Matrix): Matrix => [
  m[0] * n[0] + m[1] * n[2],
  m[0] * n[1] + m[1] * n[3],
  m[2] * n[0] + m[3] * n[2],
  m[2] * n[1] + m[3] * n[3],
  m[4] * n[0] + m[5] * n[2] + n[4],
  m[4] * n[1] + m[5] * n[3] + n[5],
];

/**
 * The images painted on a page, where and how big: an image fills the unit square of the transform
 * in force when it is painted (PDF's rule), so its box is that square through the transforms
 * (`cm`) the content stream has applied, saved and restored around it.
 */
export async function readImages(data: Uint8Array, pageNumber = 1): Promise<PaintedImage[]> {
  const document = await open(data);
  try {
    const page = await document.getPage(pageNumber);
    const operators = await page.getOperatorList();
    const images: PaintedImage[] = [];
    const stack: Matrix[] = [];
    let ctm: Matrix = [1, 0, 0, 1, 0, 0];
    operators.fnArray.forEach((fn, index) => {
      const args = operators.argsArray[index] as unknown[];
      if (fn === OPS.save) stack.push(ctm);
      else if (fn === OPS.restore) ctm = stack.pop() ?? ctm;
      else if (fn === OPS.transform) ctm = multiply(args as Matrix, ctm);
      else if (fn === OPS.paintImageXObject || fn === OPS.paintInlineImageXObject) {
        const corners = [
          [0, 0],
          [1, 0],
          [0, 1],
          [1, 1],
        ].map(([u, v]) => [u! * ctm[0] + v! * ctm[2] + ctm[4], u! * ctm[1] + v! * ctm[3] + ctm[5]] as const);
        const xs = corners.map(([x]) => x);
        const ys = corners.map(([, y]) => y);
        const [x, y] = [Math.min(...xs), Math.min(...ys)];
        const inline = args[0] as { width?: number; height?: number } | string;
        const pixels =
          typeof inline === 'object'
            ? { width: inline.width ?? 0, height: inline.height ?? 0 }
            : { width: Number(args[1]), height: Number(args[2]) };
        images.push({ x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y, pixels });
      }
    });
    return images;
  } finally {
    await document.destroy();
  }
}
