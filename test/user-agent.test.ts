/**
 * userAgent (issue 28 §4): a document loaded from a `url` sends the caller's User-Agent with its
 * own request and its subresources', and navigator.userAgent answers it; the next document on the
 * same pooled page sends Chromium's own again. A value that cannot be a header is refused.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../src/engine/engine.js';
import { isPdfRenderError } from '../src/errors.js';
import { parseRenderRequest } from '../src/request.js';
import { executablePath } from './support/browser.js';
import { readPdf } from './support/pdf.js';

// One page, so every render reuses it; loopback allowed, for the site below.
const engine = createEngine({ executablePath, concurrency: 1, network: { network: 'all', allowHosts: [] } });
/** The User-Agent of every request the site answered, by path. */
const seen: Array<[string, string]> = [];
const site = createServer((req, res) => {
  seen.push([req.url ?? '', req.headers['user-agent'] ?? '']);
  if (req.url === '/pixel.png') return void res.writeHead(404).end();
  res
    .writeHead(200, { 'Content-Type': 'text/html' })
    .end(
      `<p>HEADER=[${req.headers['user-agent']}]</p><p id="js"></p><img src="/pixel.png"><script>document.getElementById('js').textContent = 'JS=[' + navigator.userAgent + ']';</script>`,
    );
});
let url: string;

beforeAll(async () => {
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/page`;
});
afterAll(async () => {
  await engine.close();
  site.close();
});

const textOf = async (fields: Record<string, unknown>) =>
  (await readPdf((await engine.render(parseRenderRequest({ url, ...fields }))).pdf)).pages[0]!.text;

describe('userAgent', () => {
  it("is what a url document's requests send and navigator.userAgent answers, and the next document has Chromium's own", async () => {
    const agent = 'InvoiceBot/2.1 (+https://example.com/bot)';
    const text = await textOf({ userAgent: agent });
    expect(text).toContain(`HEADER=[${agent}]`);
    expect(text).toContain(`JS=[${agent}]`);
    expect(seen.filter(([path]) => path === '/pixel.png').map(([, sent]) => sent)).toEqual([agent]);
    const next = await textOf({});
    expect(next).toMatch(/HEADER=\[Mozilla\/5\.0 [^\]]*Chrome/);
    expect(next).not.toContain('InvoiceBot');
  });

  it('refuses a value that cannot be an HTTP header, naming the field', () => {
    try {
      parseRenderRequest({ url: 'https://example.com/', userAgent: 'line\nbreak' });
      expect.unreachable();
    } catch (error) {
      expect(isPdfRenderError(error, 'VALIDATION_FAILED') && error.fieldErrors).toMatchObject({
        userAgent: [expect.stringContaining('printable ASCII')],
      });
    }
  });
});
