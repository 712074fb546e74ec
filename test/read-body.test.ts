/**
 * Request bodies that cannot be decoded: every one is a 422 naming `body` (or the uploaded field),
 * never a 500, and no field name reaches an object's prototype. A two-line Hono app around
 * readBody and the real error mapping, so no browser is needed.
 */
import { Hono } from 'hono';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorResponse } from '../src/server/error-response.js';
import { parseRenderRequest } from '../src/request.js';
import { maxFormFields } from '../src/server/routes/body-shape.js';
import { readBody } from '../src/server/routes/read-body.js';

let lastBody: unknown;
const app = new Hono();
app.onError((error, c) => errorResponse(c, error, () => undefined));
app.post('/', async (c) => {
  lastBody = await readBody(c);
  return c.json({ ok: true });
});

const post = (body: BodyInit, contentType?: string) =>
  app.request('/', { method: 'POST', body, headers: contentType ? { 'Content-Type': contentType } : {} });

async function expect422(response: Response, field = 'body'): Promise<string> {
  expect(response.status).toBe(422);
  const json = await response.json();
  expect(json.outcome).toBe('VALIDATION_FAILED');
  expect(Object.keys(json.errors)).toEqual([field]);
  return json.errors[field][0];
}

describe('malformed bodies answer 422', () => {
  it('multipart/form-data without a boundary, or a body that is not multipart', async () => {
    expect(await expect422(await post('htmlContent=<p>x</p>', 'multipart/form-data'))).toMatch(
      /^is not valid multipart\/form-data: check that the Content-Type has the boundary/,
    );
    expect(await expect422(await post('just some text', 'multipart/form-data; boundary=xyz'))).toMatch(
      /^is not valid multipart\/form-data/,
    );
    // A part that never ends.
    expect(
      await expect422(
        await post(
          '--xyz\r\nContent-Disposition: form-data; name="htmlContent"\r\n\r\n<p>x',
          'multipart/form-data; boundary=xyz',
        ),
      ),
    ).toMatch(/multipart/);
  });

  it('urlencoded bodies with broken escapes or bytes that are not UTF-8', async () => {
    expect(await expect422(await post('htmlContent=%3Cp%3Eok&%zz=1', 'application/x-www-form-urlencoded'))).toMatch(
      /^is not valid application\/x-www-form-urlencoded: "%zz" has a "%" that is not followed by two hex digits.*--data-urlencode/,
    );
    expect(await expect422(await post('htmlContent=100%', 'application/x-www-form-urlencoded'))).toMatch(/"100%"/);
    // %E0%A4 starts a three-byte character and stops.
    expect(await expect422(await post('htmlContent=%E0%A4', 'application/x-www-form-urlencoded'))).toMatch(/not UTF-8/);
    expect(
      await expect422(await post(new Uint8Array([0x61, 0x3d, 0xff, 0xfe, 0x00]), 'application/x-www-form-urlencoded')),
    ).toMatch(/^is not valid UTF-8/);
  });

  it('JSON whose bytes are not UTF-8', async () => {
    const bytes = new Uint8Array([
      ...new TextEncoder().encode('{"htmlContent":"<p>'),
      0xc3,
      0x28,
      ...new TextEncoder().encode('</p>"}'),
    ]);
    expect(await expect422(await post(bytes, 'application/json'))).toBe(
      'is not valid UTF-8: send the body encoded as UTF-8',
    );
  });

  it('an uploaded file that is not UTF-8, named by its field', async () => {
    const form = new FormData();
    form.append(
      'htmlContent',
      new Blob([new Uint8Array([0x3c, 0x70, 0x3e, 0xff])], { type: 'text/html' }),
      'page.html',
    );
    expect(await expect422(await post(form), 'htmlContent')).toBe('is an uploaded file that is not valid UTF-8 text');
  });
});

describe('well-formed bodies', () => {
  it('decodes urlencoded "+" and escapes, keeps repeated fields as lists, and takes a UTF-8 BOM in JSON', async () => {
    expect(
      (await post('htmlContent=%3Cp%3Ea+b%C3%A9%3C%2Fp%3E&x=1&x=2&flag', 'application/x-www-form-urlencoded')).status,
    ).toBe(200);
    expect(lastBody).toEqual({ htmlContent: '<p>a bé</p>', x: ['1', '2'], flag: '' });
    expect(
      (await post(new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('{"a":"é"}')]), 'application/json'))
        .status,
    ).toBe(200);
    expect(lastBody).toEqual({ a: 'é' });
  });

  it('takes 10 000 multipart parts, the most there may be, and a __proto__ field without touching any prototype', async () => {
    const form = new FormData();
    for (let i = 0; i < maxFormFields - 4; i += 1) form.append(`field${i}`, String(i));
    // Sent twice, a plain-object assignment would set the body's prototype to the list.
    form.append('__proto__', '{"polluted":true}');
    form.append('__proto__', 'again');
    form.append('constructor', 'c');
    form.append('htmlContent', '<p>x</p>');
    const response = await post(form);
    expect(response.status).toBe(200);
    const body = lastBody as Record<string, unknown>;
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(Object.hasOwn(body, '__proto__')).toBe(false);
    expect(Object.keys(body)).toHaveLength(maxFormFields - 2);
    expect(body.htmlContent).toBe('<p>x</p>');
    expect(body.constructor).toBe('c');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('ignores __proto__ in urlencoded bodies too, and JSON keeps it as an own key only', async () => {
    await post('__proto__=a&__proto__=b&htmlContent=x', 'application/x-www-form-urlencoded');
    expect(Object.getPrototypeOf(lastBody)).toBe(Object.prototype);
    expect(lastBody).toEqual({ htmlContent: 'x' });
    await post('{"__proto__":{"polluted":true},"htmlContent":"x"}', 'application/json');
    expect(Object.getPrototypeOf(lastBody)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

// Issue 27 §5: these bodies (10 MB each, the --max-body default) stalled the event loop for seconds
// while they were parsed, 3.6 to 10.7 s with four in parallel, and every other request waited.
describe('bodies too complex to parse without stalling the server', () => {
  const megabytes = 10 * 1024 * 1024;
  const nestedJson = '['.repeat(megabytes / 2) + ']'.repeat(megabytes / 2);
  const flatJson = `[${'1,'.repeat(megabytes / 2 - 1)}1]`;
  let pairs = '';
  for (let i = 0; pairs.length < megabytes; i += 1) pairs += `k${i}=1&`;
  const parts = Array.from(
    { length: 100_000 },
    (_, i) => `--xyz\r\nContent-Disposition: form-data; name="k${i}"\r\n\r\n1\r\n`,
  );
  const multipart = `${parts.join('')}--xyz--\r\n`;
  const hostile = [
    { name: 'JSON nested 5 million deep', body: nestedJson, type: 'application/json', limit: /more than 32 deep/ },
    {
      name: 'a JSON array of 5 million values',
      body: flatJson,
      type: 'application/json',
      limit: /more than 10000 values/,
    },
    {
      name: 'a million urlencoded pairs',
      body: pairs,
      type: 'application/x-www-form-urlencoded',
      limit: /more than 10000 fields/,
    },
    {
      name: '100 000 multipart parts',
      body: multipart,
      type: 'multipart/form-data; boundary=xyz',
      limit: /more than 10000 fields/,
    },
  ];
  // A legitimate body of the same size: one 10 MB string of HTML, quotes and all.
  const legitimate = JSON.stringify({ htmlContent: '<p class="x">ok</p>'.repeat(megabytes / 18) });

  afterEach(() => vi.restoreAllMocks());

  it.each(hostile)('refuses $name with 413 naming the limit, without parsing it', async ({ body, type, limit }) => {
    const parsers = [
      vi.spyOn(JSON, 'parse'),
      vi.spyOn(globalThis, 'decodeURIComponent'),
      vi.spyOn(Response.prototype, 'formData'),
    ];
    const response = await post(body, type);
    const parsed = parsers.map((parser) => parser.mock.calls.length);
    vi.restoreAllMocks();
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({
      outcome: 'PAYLOAD_TOO_LARGE',
      message: expect.stringMatching(limit),
    });
    expect(parsed).toEqual([0, 0, 0]);
  });

  it('stalls the event loop no longer for four of them at once than for one legitimate 10 MB body', async () => {
    const legitimateStall = await stallDuring(async () => {
      expect((await post(legitimate, 'application/json')).status).toBe(200);
    });
    expect((lastBody as { htmlContent: string }).htmlContent.length).toBeGreaterThan(megabytes - 20);
    const hostileStall = await stallDuring(async () => {
      const responses = await Promise.all(hostile.map(({ body, type }) => post(body, type)));
      expect(responses.map((response) => response.status)).toEqual([413, 413, 413, 413]);
    });
    // Refusing reads the bytes as the legitimate body's parse does, and no more: before, the four
    // stalled the loop for seconds, some hundred times the legitimate body's few tens of ms.
    expect(hostileStall).toBeLessThan(3 * legitimateStall + 50);
    expect(legitimateStall).toBeLessThan(500);
  });

  it('refuses a form field of JSON longer than 64 KiB before parsing it', () => {
    const parse = vi.spyOn(JSON, 'parse');
    expect(() => parseRenderRequest({ htmlContent: 'x', metadata: nestedJson })).toThrow(
      expect.objectContaining({
        fieldErrors: { metadata: [expect.stringMatching(/^must be at most 65536 characters of JSON/)] },
      }),
    );
    expect(parse).not.toHaveBeenCalled();
  });
});

/** The longest the event loop went without running a 5 ms timer while `work` ran, less those 5 ms. */
async function stallDuring(work: () => Promise<void>): Promise<number> {
  let worst = 0;
  let last = performance.now();
  const tick = () => {
    const now = performance.now();
    worst = Math.max(worst, now - last - 5);
    last = now;
  };
  const timer = setInterval(tick, 5);
  try {
    await work();
  } finally {
    clearInterval(timer);
    tick();
  }
  return worst;
}
