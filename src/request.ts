/**
 * The render request: one zod schema for CLI flags, the CLI's JSON request file and the HTTP bodies.
 * It is the single source of the request's types, its validation, its help text and the request
 * bodies of the OpenAPI document (server/api/openapi.ts).
 */
import { z } from 'zod';
import { isParsedRequest, markParsed, parseRequest, type RequestParseOptions } from './schema-parse.js';
import {
  booleanField,
  delayField,
  jsonObjectField,
  lengthField,
  numberField,
  optionalHtmlField,
  optionalTextField,
  overrideHtmlField,
} from './fields.js';
import { failOnField, problemMeanings } from './fail-on-rules.js';
import { cookiesSchema, mediaFeatureFields, mediaFeaturesSchema, metadataSchema } from './request-objects.js';
import { assetsSchema, maxAssetBytes, maxAssets } from './request-assets.js';
import {
  attachmentRelationships,
  attachmentsField,
  maxAttachmentBytes,
  maxAttachments,
} from './request-attachments.js';
import { checkPdfaAttachments, pdfaField } from './request-pdfa.js';
import { checkFacturXFields, facturXFields } from './request-factur-x.js';
import { checkHeaderScope, extraHttpHeadersOriginsField, extraHttpHeadersSchema } from './extra-http-headers.js';
import { formatInches } from './length.js';
import { checkFormat, fillFormatSizes, formatField, whenFormatParsed } from './paper-format-field.js';
import { parsePageRanges } from './page-ranges.js';
import { checkSinglePage, singlePageField } from './single-page-field.js';
import { expressionProblem } from './wait-expression.js';

/**
 * The largest paper side: 200 in (14 400 pt) is PDF's own page limit in Acrobat and most readers,
 * and a bound that keeps one request from asking Chromium to lay out a page of absurd size (1e26 in
 * was accepted; a 50 in page with heavy filters burned a whole deadline). Margins are bounded by it.
 */
export const maxPaperInches = 200;

/** Chromium's printToPDF accepts scales from 0.1 to 2. */
export const scaleRange = { min: 0.1, max: 2 } as const;

/** The longest URL `url` may give. */
const maxUrlChars = 8192;

function checkPageUrl(url: string, ctx: z.RefinementCtx): void {
  const parsed = URL.parse(url);
  if (!parsed || !/^https?:$/.test(parsed.protocol))
    ctx.addIssue({
      code: 'custom',
      message: `must be an http or https URL (got ${JSON.stringify(url.slice(0, 200))})`,
      input: url,
    });
}

/** The longest waitDelay: longer than any sensible deadline, and far inside what a Node timer can wait. */
const maxWaitDelayMs = 10 * 60_000;

/** The longest selector or expression a wait may give. */
const maxWaitChars = 10_000;

// Exactly one expression (wait-expression.ts), so it cannot close the wrapper it runs in.
function checkExpression(expression: string | null, ctx: z.RefinementCtx): void {
  const problem = expression === null ? null : expressionProblem(expression);
  if (problem !== null) ctx.addIssue({ code: 'custom', message: problem, input: expression });
}

export type { MediaFeatures, PdfMetadata } from './request-objects.js';

/** The fields every render request has, with their defaults applied by parsing. */
export const renderRequestFields = {
  htmlContent: z
    .string({ error: 'must be a string of HTML' })
    .min(1, 'must not be empty')
    .nullish()
    .transform((value) => value ?? null)
    .describe('the HTML document to render; this or url is required'),
  url: z
    .string({ error: 'must be a string' })
    .max(maxUrlChars, { error: `must be at most ${maxUrlChars} characters` })
    .superRefine(checkPageUrl)
    .nullish()
    .transform((value) => value ?? null)
    .describe(
      'render the page at this http(s) URL instead of htmlContent (fetched under the same network rules as everything the document loads)',
    ),
  headerHtmlContent: optionalHtmlField(
    'HTML printed at the top of every page; classes pageNumber, totalPages, date, title, url are filled in',
  ),
  footerHtmlContent: optionalHtmlField('HTML printed at the bottom of every page; same classes as the header'),
  firstPageHeaderHtmlContent: overrideHtmlField(
    'HTML printed at the top of page 1 instead of the header; an empty string leaves page 1 without one; same classes',
  ),
  firstPageFooterHtmlContent: overrideHtmlField(
    'HTML printed at the bottom of page 1 instead of the footer; an empty string leaves page 1 without one; same classes',
  ),
  landscape: booleanField('swap the page width and height'),
  format: formatField,
  paperWidth: lengthField('page width', '8.5in'),
  paperHeight: lengthField('page height', '11in'),
  marginTop: lengthField('top margin', '0.39in'),
  marginLeft: lengthField('left margin', '0.39in'),
  marginRight: lengthField('right margin', '0.39in'),
  marginBottom: lengthField('bottom margin', '0.39in'),
  printBackground: booleanField('print background colours and images'),
  scale: numberField(scaleRange)
    .prefault(1)
    .describe(`rendering scale, ${scaleRange.min} to ${scaleRange.max} (default 1)`),
  tagged: booleanField(
    "write a tagged, accessible PDF: a structure tree of the document's headings, paragraphs, tables, lists and images with their alt text, its language, its title shown as the window's, the header and footer marked as artifacts (not read aloud), and the PDF/UA identification where it has a title; false writes an untagged PDF, smaller and faster to print",
    true,
  ),
  outline: booleanField('add a bookmark outline built from the headings (a document without headings has none)', true),
  lang: optionalTextField(
    35,
    'the document\'s language as a BCP 47 tag, such as "de" or "en-GB", for a document whose <html> has no lang attribute (screen readers choose their voice by it)',
  ).refine((value) => value === null || /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(value), {
    error: 'must be a language tag such as "en", "de-CH" or "zh-Hant"',
  }),
  waitForSelector: optionalTextField(
    maxWaitChars,
    'print once an element matching this CSS selector exists and is visible',
  ),
  waitForExpression: optionalTextField(
    maxWaitChars,
    "print once this JavaScript expression (exactly one) is truthy in the page (it may return a promise); needs the documents' JavaScript on",
  ).superRefine(checkExpression),
  waitDelay: delayField()
    .pipe(
      z
        .number()
        .max(
          maxWaitDelayMs,
          `must be at most ${maxWaitDelayMs / 60_000} minutes (a render's deadline is shorter still)`,
        ),
    )
    .nullish()
    .transform((value) => value ?? null)
    .describe('wait this long after the load event before printing: "500ms", "2s", or milliseconds as a number'),
  waitForNetworkIdle: booleanField('print once the page has had no network request in flight for 500 ms'),
  preferCssPageSize: booleanField("let the document's CSS @page size win over paperWidth and paperHeight"),
  singlePage: singlePageField,
  emulatedMediaType: z
    .enum(['print', 'screen'], { error: (issue) => `must be "print" or "screen" (got ${JSON.stringify(issue.input)})` })
    .prefault('print')
    .describe('the CSS media type the document is laid out for: print or screen (default print)'),
  // Kept as the caller wrote it: a stored async request is parsed again when its job runs.
  pageRanges: optionalTextField(
    2000,
    'print only these pages, such as "1-3,5", "2-" or "-4" (default every page)',
  ).superRefine((text, ctx) => {
    const parsed = text === null ? [] : parsePageRanges(text);
    if ('problem' in parsed) ctx.addIssue({ code: 'custom', message: parsed.problem, input: text });
  }),
  userAgent: optionalTextField(
    512,
    "the User-Agent the document's requests send and navigator.userAgent answers (default Chromium's own)",
  ).refine((value) => value === null || /^[\x20-\x7e]*$/.test(value), {
    error: 'must be printable ASCII, as an HTTP header value is',
  }),
  cookies: jsonObjectField(cookiesSchema)
    .nullish()
    .transform((value) => value ?? null)
    .describe(
      'cookies for a url document, by name, such as {"session": "abc"}: sent with its own request and its requests to the same host (host-only cookies of the url\'s host, path /), never to another site; over a form or a flag, a string of JSON',
    ),
  extraHttpHeaders: jsonObjectField(extraHttpHeadersSchema)
    .nullish()
    .transform((value) => value ?? null)
    .describe(
      'HTTP headers by name, such as {"Authorization": "Bearer abc"}, sent with the requests to the url document\'s own origin and to extraHttpHeadersOrigins, never to another origin (nor where a redirect leads off them); not headers the browser sets (Host, Cookie, User-Agent, Content-Length...); over a form or a flag, a string of JSON',
    ),
  extraHttpHeadersOrigins: extraHttpHeadersOriginsField.describe(
    'further origins extraHttpHeaders go to, such as ["https://api.example.com"] (scheme, host and port); over a form or a flag, origins separated by commas',
  ),
  emulatedMediaFeatures: jsonObjectField(mediaFeaturesSchema)
    .nullish()
    .transform((value) => value ?? null)
    .describe(
      `CSS media features the document is laid out for, by name: ${Object.entries(mediaFeatureFields)
        .map(([name, field]) => `${name} (${field.unwrap().options.join(', ')})`)
        .join(', ')}; for example {"prefers-color-scheme": "dark"}; over a form or a flag, a string of JSON`,
    ),
  failOn: failOnField.describe(
    `turn these kinds of problem in the render's report into a failure (RENDER_PDF_FAILED) instead of a warning: ${Object.entries(
      problemMeanings,
    )
      .map(([rule, meaning]) => `${rule} (${meaning})`)
      .join('; ')}; default the server's --fail-on (none unless set); over a form or a flag, rules separated by commas`,
  ),
  assets: jsonObjectField(assetsSchema)
    .nullish()
    .transform((value) => value ?? null)
    .describe(
      `files sent with the document, by name, as base64, such as {"logo.png": "iVBOR...", "css/site.css": "Ym9keSB7fQ=="}: they become the document's folder for its render (relative URLs in the document and its header and footer find them; nothing outside it), deleted after it; render-async keeps them with the job, in its stored request, until the job has rendered; at most ${maxAssets} files and ${maxAssetBytes / 1024 / 1024} MB together; not with url; over a form, a string of JSON, or in a multipart form the files uploaded as assets parts, each named by its file name`,
    ),
  metadata: jsonObjectField(metadataSchema)
    .nullish()
    .transform((value) => value ?? null)
    .describe(
      'document information written into the PDF: title, author, subject, keywords (a string or a list), creator, creationDate (ISO 8601); over a form or a flag, a string of JSON',
    ),
  pdfa: pdfaField.describe(
    'write an archival PDF/A file: "PDF/A-2b" or "PDF/A-3b" (PDF/A-3b where there are attachments); default none. pdfrender adds the sRGB output intent, the XMP identification and a document ID, and fails the render (RENDER_PDF_FAILED, naming the rule) where the print breaks a PDF/A rule it cannot mend',
  ),
  attachments: attachmentsField
    .nullish()
    .transform((value) => value ?? null)
    .describe(
      `files embedded in the PDF, a list of {"name": "data.xml", "content": "<base64>", "mediaType": "text/xml", "relationship": "Data", "description": "..."}: relationship one of ${attachmentRelationships.join(', ')} (default Unspecified), mediaType by default from the name's extension; at most ${maxAttachments} files and ${maxAttachmentBytes / 1024 / 1024} MB together; names unique, without "/", "\\" or control characters; over a form, a string of JSON, or in a multipart form files uploaded as attachments parts (their relationship and description then given by an attachments field of JSON entries without content)`,
    ),
  ...facturXFields,
};

const pageFieldNames = [
  'landscape',
  'paperWidth',
  'paperHeight',
  'marginTop',
  'marginLeft',
  'marginRight',
  'marginBottom',
] as const;
type PageFields = { [K in (typeof pageFieldNames)[number]]: K extends 'landscape' ? boolean : number };

/**
 * Run the page-fits check whenever the page fields themselves parsed, even if other fields did not,
 * so overflowing margins are reported together with every other bad field (zod skips an object's
 * refinements after any field issue by default).
 */
const whenPageFieldsParsed = {
  when: (payload: z.core.ParsePayload) =>
    !payload.issues.some(
      (issue) => !issue.path?.length || (pageFieldNames as readonly PropertyKey[]).includes(issue.path[0]!),
    ),
};

// The printable area must be positive after margins, on the page as it will be printed.
function checkPageFits(request: PageFields, ctx: z.RefinementCtx): void {
  const pageWidth = request.landscape ? request.paperHeight : request.paperWidth;
  const pageHeight = request.landscape ? request.paperWidth : request.paperHeight;
  for (const field of ['paperWidth', 'paperHeight'] as const) {
    if (request[field] <= 0) ctx.addIssue({ code: 'custom', path: [field], message: 'must be greater than zero' });
    else if (request[field] > maxPaperInches)
      ctx.addIssue({
        code: 'custom',
        path: [field],
        message: `must be at most ${maxPaperInches}in (${maxPaperInches * 72}pt, the largest page PDF readers open) (got ${formatInches(request[field])})`,
      });
  }
  const across = request.marginLeft + request.marginRight;
  if (pageWidth > 0 && across >= pageWidth) {
    const message = `marginLeft + marginRight (${formatInches(across)}) must be smaller than the page width (${formatInches(pageWidth)})`;
    ctx.addIssue({ code: 'custom', path: ['marginLeft'], message });
    ctx.addIssue({ code: 'custom', path: ['marginRight'], message });
  }
  const down = request.marginTop + request.marginBottom;
  if (pageHeight > 0 && down >= pageHeight) {
    const message = `marginTop + marginBottom (${formatInches(down)}) must be smaller than the page height (${formatInches(pageHeight)})`;
    ctx.addIssue({ code: 'custom', path: ['marginTop'], message });
    ctx.addIssue({ code: 'custom', path: ['marginBottom'], message });
  }
}

// Exactly one document: HTML, or a URL to load it from. Judged on what was sent, so it is reported
// together with every other bad field (as the page-fits check is, below).
function checkOneDocument(
  sent: { htmlContent?: unknown; url?: unknown; cookies?: unknown; assets?: unknown },
  ctx: z.RefinementCtx,
): void {
  const given = (value: unknown) => value !== undefined && value !== null;
  if (!given(sent.htmlContent) && !given(sent.url))
    ctx.addIssue({
      code: 'custom',
      path: ['htmlContent'],
      message: 'is required (or give url instead)',
      input: sent.htmlContent,
    });
  if (given(sent.htmlContent) && given(sent.url))
    ctx.addIssue({
      code: 'custom',
      path: ['url'],
      message: 'give either url or htmlContent, not both',
      input: sent.url,
    });
  if (given(sent.cookies) && !given(sent.url))
    ctx.addIssue({
      code: 'custom',
      path: ['cookies'],
      message: 'go with a url document (they are set for its host)',
      input: sent.cookies,
    });
  // A page loaded from a URL reads no local file: the assets would be sent for nothing.
  if (given(sent.assets) && given(sent.url))
    ctx.addIssue({ code: 'custom', path: ['assets'], message: 'go with htmlContent, not with url', input: '' });
}
const whenAnObject = {
  when: (payload: z.core.ParsePayload) =>
    typeof payload.value === 'object' && payload.value !== null && !Array.isArray(payload.value),
};

const renderRequestObject = z
  .object(renderRequestFields)
  .superRefine(checkOneDocument, whenAnObject)
  .superRefine(checkPdfaAttachments, whenAnObject)
  .superRefine(checkFacturXFields, whenAnObject)
  .superRefine(checkHeaderScope, whenAnObject)
  .superRefine(checkSinglePage, whenAnObject)
  .superRefine(checkFormat, whenFormatParsed)
  .superRefine(checkPageFits, whenPageFieldsParsed);

/** The render request schema: a format's sizes filled in, the fields, then the checks that involve more than one field. */
export const renderRequestSchema = z.preprocess(
  (input: z.input<typeof renderRequestObject>) => fillFormatSizes(input),
  renderRequestObject,
);

/** Async priorities: higher first. */
export const priorityRange = { min: -10, max: 10 } as const;

/** The async request: every render field, plus the caller's identifier and a priority. */
const asyncRenderRequestObject = z
  .object({
    ...renderRequestFields,
    identifier: z
      .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
      .min(1, 'must not be empty')
      .max(200, 'must be at most 200 characters')
      .regex(/^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]*$/u, 'must be printable characters (no control characters or line breaks)')
      .describe(
        "the caller's id for the file, echoed in the webhook; the same caller may not reuse it within the dedupe window",
      ),
    priority: numberField({ ...priorityRange, integer: true })
      .prefault(0)
      .describe(
        `${priorityRange.min} to ${priorityRange.max}, higher first among the caller's own jobs (default 0); callers share the workers whatever their priorities`,
      ),
  })
  .superRefine(checkOneDocument, whenAnObject)
  .superRefine(checkPdfaAttachments, whenAnObject)
  .superRefine(checkFacturXFields, whenAnObject)
  .superRefine(checkHeaderScope, whenAnObject)
  .superRefine(checkSinglePage, whenAnObject)
  .superRefine(checkFormat, whenFormatParsed)
  .superRefine(checkPageFits, whenPageFieldsParsed);

/** The async request schema: as the render request's, with identifier and priority. */
export const asyncRenderRequestSchema = z.preprocess(
  (input: z.input<typeof asyncRenderRequestObject>) => fillFormatSizes(input),
  asyncRenderRequestObject,
);

/** A validated async request. */
export type AsyncRenderRequest = z.output<typeof asyncRenderRequestSchema>;

/** A validated render request: lengths are in inches, every default applied. */
export type RenderRequest = z.output<typeof renderRequestSchema>;
/** What a caller may send: strings or numbers, most fields optional. */
export type RenderRequestInput = z.input<typeof renderRequestObject>;

export { fieldErrorsOf, parseNamed, parseWith, type RequestParseOptions } from './schema-parse.js';

/**
 * The fields of render-async alone: where a render happens at once they are accepted and ignored,
 * so one body serves both routes (RenderPDF.io's PHP client sends identifier to render-sync).
 */
const asyncOnlyFieldNames = ['identifier', 'priority'];

/** Every name a render or async request may hold. */
const knownNames = [...Object.keys(renderRequestFields), ...asyncOnlyFieldNames];

/** Validate a render request from any edge, applying defaults; an unknown field is refused (or, with `unknownFields: 'warn'`, ignored with a warning). */
export function parseRenderRequest(input: unknown, options: RequestParseOptions = {}): RenderRequest {
  return parseRequest(renderRequestSchema, knownNames, input, options);
}

/** Validate a render-async request as parseRenderRequest does a render request. */
export function parseAsyncRenderRequest(input: unknown, options: RequestParseOptions = {}): AsyncRenderRequest {
  return parseRequest(asyncRenderRequestSchema, knownNames, input, options);
}

/** A parsed request without its assets (the engine has put them in the document's folder), itself parsed. */
export function withoutAssets(request: RenderRequest): RenderRequest {
  return markParsed({ ...request, assets: null });
}

/** True for a request parseRenderRequest returned: the engine renders it without parsing it again. */
export function isParsedRenderRequest(request: unknown): request is RenderRequest {
  return isParsedRequest(request);
}
