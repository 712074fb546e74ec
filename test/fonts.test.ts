/**
 * Every script renders with a font (issue 28 §1). On a machine set up with the README's commands
 * (`pdfrender setup`, which installs the Noto fonts), the multilingual fixture (every major script,
 * right-to-left and mixed-direction lines, emoji) draws no character as an empty box, and emoji in
 * colour. Checked from the PDF's glyphs: Chromium writes the right text even where it draws boxes.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine } from '../src/engine/engine.js';
import { parseRenderRequest } from '../src/request.js';
import { executablePath } from './support/browser.js';
import { readGlyphs, readPdf } from './support/pdf.js';

const engine = createEngine({ executablePath, concurrency: 1 });
afterAll(() => engine.close());

const fixture = resolve(import.meta.dirname, '../fixtures/multilingual/multilingual.html');

describe('the multilingual fixture', () => {
  it('draws every script with a glyph of its own, and emoji in colour', async () => {
    const { pdf } = await engine.render(parseRenderRequest({ htmlContent: await readFile(fixture, 'utf8') }));
    const fonts = await readGlyphs(pdf);
    expect(
      fonts.filter((font) => font.notdef > 0).map((font) => `${font.name}: ${font.notdef} of ${font.glyphs}`),
    ).toEqual([]);
    // Colour emoji are pictures in the PDF (a Type 3 font of Noto Color Emoji), not black outlines.
    expect(fonts.filter((font) => font.type3 && /emoji/i.test(font.name)).length).toBeGreaterThan(0);
    // Scripts no default font has got a Noto font of their own (Arabic and Hebrew may be DejaVu Sans's).
    const names = fonts.map((font) => font.name).join(' ');
    for (const family of ['CJKjp', 'CJKkr', 'Devanagari', 'Bengali', 'Thai', 'Tamil', 'Malayalam'])
      expect(names, `a ${family} font among ${names}`).toMatch(new RegExp(family, 'i'));
    // (Noto CJK's character map writes some ideographs as Kangxi radicals, 月 as ⽉: asserted on others.)
    expect((await readPdf(pdf)).pages[0]!.text).toContain('請求書');
  });

  it('is shown failing by a character no font has: a private-use code point is one empty box', async () => {
    const { pdf } = await engine.render(parseRenderRequest({ htmlContent: '<p>box: \uE7FF</p>' }));
    expect((await readGlyphs(pdf)).reduce((sum, font) => sum + font.notdef, 0)).toBe(1);
  });
});
