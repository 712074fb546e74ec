/**
 * Booleans as form encoders send them (PHP's 1/0, an HTML checkbox's "on", yes/no, an empty value
 * for an unset field), through a real server into the PDF: landscape shows in the page size,
 * printBackground in the fill colours painted. Serve settings read the same words from the environment.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadServeConfig } from '../src/server/config.js';
import { createEngine, type Engine } from '../src/engine/engine.js';
import { executablePath } from './support/browser.js';
import { removeTempDirs } from './support/files.js';
import { readPaint, readPdf } from './support/pdf.js';
import { startServer, type TestServer } from './support/server.js';

let engine: Engine;
let server: TestServer;

beforeAll(async () => {
  engine = createEngine({ executablePath, concurrency: 2, timeoutMs: 5000 });
  server = await startServer({ rateLimit: 1000 }, { engine });
});

afterAll(async () => {
  await server.close();
  await engine.close();
  await removeTempDirs();
});

const html = '<div style="background:#ff0000;height:100px">red box</div>';

/** The body of a render-sync request with `landscape` and `printBackground` both set to `value`. */
const encodings = {
  formData: (value: string) => {
    const form = new FormData();
    for (const [name, text] of Object.entries({ htmlContent: html, landscape: value, printBackground: value }))
      form.append(name, text);
    return form;
  },
  urlencoded: (value: string) => new URLSearchParams({ htmlContent: html, landscape: value, printBackground: value }),
};

const render = (body: FormData | URLSearchParams | string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/api/pdfs/render-sync`, {
    method: 'POST',
    body,
    headers: { Accept: 'application/pdf', ...headers },
  });

describe('booleans in form bodies', () => {
  describe.each(Object.entries(encodings))('%s', (_, encode) => {
    it.each([
      ['1', true],
      ['on', true],
      ['YES', true],
      [' True ', true],
      ['0', false],
      ['off', false],
      ['No', false],
      // An unset field: the default (portrait, no background).
      ['', false],
    ])('reads %j as %s', async (value, expected) => {
      const response = await render(encode(value));
      expect(response.status).toBe(200);
      const pdf = new Uint8Array(await response.arrayBuffer());
      const page = (await readPdf(pdf)).pages[0]!;
      // Letter: 612 x 792 points, the sides swapped in landscape.
      expect([page.width, page.height]).toEqual(expected ? [792, 612] : [612, 792]);
      expect(page.text).toBe('red box');
      expect((await readPaint(pdf)).fillColors.has('#ff0000')).toBe(expected);
    });

    it('answers 422 naming the field and what is accepted for any other word', async () => {
      const response = await render(encode('maybe'));
      expect(response.status).toBe(422);
      const body = await response.json();
      expect(body.outcome).toBe('VALIDATION_FAILED');
      expect(body.errors).toEqual({
        landscape: ['must be true or false (or 1/0, on/off, yes/no); got "maybe"'],
        printBackground: ['must be true or false (or 1/0, on/off, yes/no); got "maybe"'],
      });
    });
  });

  it('reads the same words in JSON strings', async () => {
    const response = await render(JSON.stringify({ htmlContent: html, landscape: 'on', printBackground: 'off' }), {
      'Content-Type': 'application/json',
    });
    expect(response.status).toBe(200);
    const pdf = new Uint8Array(await response.arrayBuffer());
    expect((await readPdf(pdf)).pages[0]).toMatchObject({ width: 792, height: 612 });
    expect((await readPaint(pdf)).fillColors.has('#ff0000')).toBe(false);
  });
});

describe('boolean serve settings from the environment', () => {
  it('take the same words, and name the flag and variable for any other', () => {
    const env = {
      PDFRENDER_ALLOW_PRIVATE_WEBHOOKS: 'Yes',
      PDFRENDER_BLOCK_NETWORK: '1',
      PDFRENDER_DISABLE_JAVASCRIPT: 'off',
      PDFRENDER_TRUST_PROXY: 'on',
    };
    expect(loadServeConfig({}, env, '/srv')).toMatchObject({
      allowPrivateWebhooks: true,
      blockNetwork: true,
      disableJavascript: false,
      trustProxy: 1,
    });
    expect(loadServeConfig({}, { PDFRENDER_TRUST_PROXY: 'no' }, '/srv').trustProxy).toBe(0);
    expect(() => loadServeConfig({}, { PDFRENDER_FAIL_ON_BLOCKED: 'maybe' }, '/srv')).toThrow(
      '--fail-on-blocked (PDFRENDER_FAIL_ON_BLOCKED): must be true or false (or 1/0, on/off, yes/no); got "maybe"',
    );
  });
});
