/** The package entry as users import it (the built dist/index.js), as shown in the README. */
import { describe, expect, it } from 'vitest';
import { createEngine, isPdfRenderError, parseRenderRequest, requireBrowser } from '../dist/index.js';
import { pt, readPdf } from './support/pdf.js';

describe('library API', () => {
  it('renders the README example', async () => {
    const engine = createEngine({ executablePath: requireBrowser().executablePath, concurrency: 2 });
    try {
      const result = await engine.render(
        parseRenderRequest({ htmlContent: '<h1>Hello</h1>', paperWidth: '210mm', paperHeight: '297mm' }),
      );
      expect(result).toMatchObject({ pages: 1, bytes: result.pdf.byteLength, warnings: [] });
      const pdf = await readPdf(result.pdf);
      expect(pdf.pages[0]!.text).toBe('Hello');
      expect(pdf.pages[0]!.width).toBeCloseTo(210 * pt.mm, -1);
    } finally {
      await engine.close();
    }
  });

  it('reports every invalid field in one error', () => {
    const error = (() => {
      try {
        parseRenderRequest({ scale: 9, paperWidth: 'wide' });
      } catch (e) {
        return e;
      }
    })();
    expect(isPdfRenderError(error, 'VALIDATION_FAILED')).toBe(true);
    expect(Object.keys((error as { fieldErrors: object }).fieldErrors).sort()).toEqual([
      'htmlContent',
      'paperWidth',
      'scale',
    ]);
  });
});
