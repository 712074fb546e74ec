/**
 * emulatedMediaFeatures (issue 28 §4): a document laid out for `prefers-color-scheme: dark` and
 * `prefers-reduced-motion: reduce` prints what its CSS gives those, and the next document on the
 * same pooled page is laid out for the defaults again. Unknown features and values are refused,
 * naming the field.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine } from '../src/engine/engine.js';
import { isPdfRenderError } from '../src/errors.js';
import { parseRenderRequest } from '../src/request.js';
import { executablePath } from './support/browser.js';
import { readPdf } from './support/pdf.js';

// One page, so every render reuses it.
const engine = createEngine({ executablePath, concurrency: 1 });
afterAll(() => engine.close());

const document = `<style>
  .scheme::after { content: 'LIGHT'; }
  @media (prefers-color-scheme: dark) { .scheme::after { content: 'DARK'; } }
  .motion::after { content: 'MOTION'; }
  @media (prefers-reduced-motion: reduce) { .motion::after { content: 'REDUCED'; } }
</style><p class="scheme"></p><p class="motion"></p>`;

const textOf = async (fields: Record<string, unknown>) =>
  (await readPdf((await engine.render(parseRenderRequest({ htmlContent: document, ...fields }))).pdf)).pages[0]!.text;

describe('emulatedMediaFeatures', () => {
  it('lays the document out for the features asked for, and the next document for the defaults again', async () => {
    expect(await textOf({})).toMatch(/LIGHT\s*MOTION/);
    expect(
      await textOf({ emulatedMediaFeatures: { 'prefers-color-scheme': 'dark', 'prefers-reduced-motion': 'reduce' } }),
    ).toMatch(/DARK\s*REDUCED/);
    // As a form field or flag gives it: a string of JSON.
    expect(await textOf({ emulatedMediaFeatures: '{"prefers-color-scheme":"dark"}' })).toMatch(/DARK\s*MOTION/);
    expect(await textOf({})).toMatch(/LIGHT\s*MOTION/);
  });

  it('refuses a feature it does not know and a value the feature does not take, naming the field', () => {
    const refusal = (features: unknown) => {
      try {
        parseRenderRequest({ htmlContent: '<p>x</p>', emulatedMediaFeatures: features });
      } catch (error) {
        if (isPdfRenderError(error, 'VALIDATION_FAILED')) return JSON.stringify(error.fieldErrors);
        throw error;
      }
      return 'accepted';
    };
    expect(refusal({ 'prefers-colour-scheme': 'dark' })).toMatch(
      /emulatedMediaFeatures.*unknown feature \\"prefers-colour-scheme\\"/,
    );
    expect(refusal({ 'prefers-color-scheme': 'blue' })).toMatch(/emulatedMediaFeatures/);
  });
});
