/**
 * The request's extraHttpHeaders and where they go (issue 28 §4): headers by name, sent with the
 * requests to the `url` document's own origin, and to the origins extraHttpHeadersOrigins adds,
 * never to any other (a bearer token stays away from a third-party CDN). Names are HTTP tokens and
 * values have no line breaks, so a value cannot smuggle another header; the headers the browser
 * itself controls (Host, Content-Length, Cookie and the like) are refused by name.
 */
import { z } from 'zod';

/** The most headers a request may add. */
const maxHeaders = 50;

/** The most origins extraHttpHeadersOrigins may list. */
const maxOrigins = 20;

/** Headers the browser sets itself (the Fetch standard's forbidden request headers), and where to look instead. */
const browserHeaders: Record<string, string> = {
  'user-agent': 'goes in the userAgent field',
  cookie: 'goes in the cookies field',
  ...Object.fromEntries(
    [
      'accept-charset',
      'accept-encoding',
      'access-control-request-headers',
      'access-control-request-method',
      'access-control-request-private-network',
      'connection',
      'content-length',
      'cookie2',
      'date',
      'dnt',
      'expect',
      'host',
      'keep-alive',
      'origin',
      'referer',
      'set-cookie',
      'te',
      'trailer',
      'transfer-encoding',
      'upgrade',
      'via',
    ].map((name) => [name, 'is set by the browser']),
  ),
};

// Why the browser keeps `name` to itself, or null when a caller may send it.
function browserHeader(name: string): string | null {
  const lower = name.toLowerCase();
  if (Object.hasOwn(browserHeaders, lower)) return browserHeaders[lower]!;
  if (lower.startsWith('proxy-')) return 'is for the proxy (Proxy- headers), which is pdfrender';
  if (lower.startsWith('sec-')) return 'is set by the browser (Sec- headers)';
  return null;
}

/** Headers by name: HTTP tokens, values of printable ASCII (no line breaks), none the browser sets. */
export const extraHttpHeadersSchema = z
  .record(
    z.string(),
    z
      .string({ error: 'must be a string' })
      .max(8192, 'must be at most 8192 characters')
      .regex(/^[\t\x20-\x7e]*$/, 'must be printable ASCII, as an HTTP header value is (no line breaks)'),
  )
  .superRefine((headers, ctx) => {
    const names = Object.keys(headers);
    if (names.length > maxHeaders) ctx.addIssue({ code: 'custom', message: `at most ${maxHeaders} headers` });
    const seen = new Set<string>();
    for (const name of names) {
      const problem = !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,256}$/.test(name)
        ? "a header name must be an HTTP token of at most 256 characters (letters, digits and !#$%&'*+-.^_`|~)"
        : seen.has(name.toLowerCase())
          ? 'is given twice (header names are case-insensitive)'
          : browserHeader(name);
      seen.add(name.toLowerCase());
      if (problem !== null) ctx.addIssue({ code: 'custom', path: [name], message: problem, input: name });
    }
  });

// An http(s) origin as written, such as "https://cdn.example.com" or "http://127.0.0.1:8080", made canonical.
const originText = z.string().transform((text, ctx) => {
  const parsed = URL.parse(text.trim());
  if (
    parsed &&
    /^https?:$/.test(parsed.protocol) &&
    !parsed.username &&
    !parsed.password &&
    /^[a-z]+:\/\/[^/?#]+\/?$/i.test(text.trim())
  )
    return parsed.origin;
  ctx.addIssue({
    code: 'custom',
    message: `must be an http(s) origin such as "https://cdn.example.com" (scheme, host and port, no path) (got ${JSON.stringify(text.slice(0, 200))})`,
    input: text,
  });
  return z.NEVER;
});

/** Further origins the headers go to: a list, or (a form field, a flag) one string of origins separated by commas. */
export const extraHttpHeadersOriginsField = z
  .union([z.array(z.string()), z.string()], {
    error: 'must be a list of origins, or a string of them separated by commas',
  })
  .transform((value) => (typeof value === 'string' ? value.split(',').filter((text) => text.trim() !== '') : value))
  .pipe(z.array(originText).max(maxOrigins, `at most ${maxOrigins} origins`))
  .nullish()
  .transform((value) => (value?.length ? value : null));

/**
 * The headers go to the `url` document's origin, or to origins named for them: without either they
 * would go nowhere, and origins without headers mean nothing. Judged on what was sent, as the other
 * cross-field rules are.
 */
export function checkHeaderScope(
  sent: { url?: unknown; extraHttpHeaders?: unknown; extraHttpHeadersOrigins?: unknown },
  ctx: z.RefinementCtx,
): void {
  const given = (value: unknown) => value !== undefined && value !== null && value !== '';
  if (given(sent.extraHttpHeaders) && !given(sent.url) && !given(sent.extraHttpHeadersOrigins))
    ctx.addIssue({
      code: 'custom',
      path: ['extraHttpHeaders'],
      message:
        'go with a url document (they are sent to its origin), or name the origins they go to in extraHttpHeadersOrigins',
      input: sent.extraHttpHeaders,
    });
  if (given(sent.extraHttpHeadersOrigins) && !given(sent.extraHttpHeaders))
    ctx.addIssue({
      code: 'custom',
      path: ['extraHttpHeadersOrigins'],
      message: 'names where extraHttpHeaders go, so it needs extraHttpHeaders',
      input: sent.extraHttpHeadersOrigins,
    });
}

/** The origins a request's extraHttpHeaders go to: its url's, and those it names. */
export function headerOrigins(request: { url: string | null; extraHttpHeadersOrigins: string[] | null }): Set<string> {
  const own = request.url === null ? null : URL.parse(request.url)?.origin;
  return new Set([...(own ? [own] : []), ...(request.extraHttpHeadersOrigins ?? [])]);
}
