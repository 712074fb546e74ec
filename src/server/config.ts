/**
 * `pdfrender serve` configuration: flags, then PDFRENDER_* environment variables, then defaults,
 * validated by one zod schema into a frozen object. Only the edges read process.env; everything
 * past here gets this object.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { labelFieldErrors, PdfRenderError } from '../errors.js';
import { booleanField, byteSizeField, durationField, numberField, optionalBooleanField } from '../fields.js';
import { isLoopbackHost } from '../network/address-spelling.js';
import { trustProxyField } from '../network/trust-proxy.js';
import { listSetting, policySettings } from '../network/policy-settings.js';
import { parseNamed, parseWith } from '../request.js';
import { filesLocationField, s3EndpointField } from '../store/files/s3-location.js';
import { flagName, renderSettings, type Setting } from '../render-settings.js';

/**
 * API keys: a repeatable flag or a comma list. A blank entry is refused rather than dropped: it is
 * what `--api-key "$KEY"` with an unset variable gives, and dropping it would start the server with
 * authentication off.
 */
const apiKeyList = z
  .union([z.array(z.string()), z.string()])
  .transform((value) => (Array.isArray(value) ? value : value.split(',')).map((item) => item.trim()))
  .refine(
    (keys) => keys.every((key) => key !== ''),
    'a blank API key would leave authentication off; give the key, or leave the setting out to run without auth',
  )
  .prefault([]);

/** Web origins, as browsers send them in Origin: scheme, host and port only (a default port dropped). */
const originList = listSetting.transform((origins, ctx) =>
  origins.map((origin) => {
    const parsed = URL.canParse(origin) ? new URL(origin) : undefined;
    if (
      !parsed ||
      !/^https?:$/.test(parsed.protocol) ||
      parsed.username ||
      parsed.pathname !== '/' ||
      parsed.search ||
      parsed.hash
    ) {
      ctx.addIssue({
        code: 'custom',
        message: `"${origin}" is not a web origin such as "https://app.example.com" (scheme, host and port only)`,
        input: origin,
      });
    }
    return parsed?.origin ?? origin;
  }),
);

/** A header value as HTTP allows it (printable ASCII), so a bad one stops the start instead of every delivery. */
const headerValue = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(1000, 'must be at most 1000 characters')
  .regex(/^[\x20-\x7e]*$/, 'must be printable ASCII (no line breaks or control characters)');

/** A rate in bytes per second, written as a size with or without "/s" ("1kb", "1kb/s"). */
const uploadRateField = z
  .union([z.number(), z.string()], { error: 'must be a size per second such as "1kb" or "1kb/s"' })
  .transform((value) => (typeof value === 'string' ? value.trim().replace(/\/s$/i, '') : value))
  .pipe(byteSizeField());

/** A PostgreSQL connection URL; the message never repeats it (it may hold a password). */
export const databaseUrl = z
  .string()
  .refine(
    (value) => /^postgres(ql)?:\/\//.test(value) && URL.canParse(value),
    'must be a PostgreSQL URL such as postgres://user:password@db.internal:5432/pdfrender',
  );

/** Every serve setting: its flag, its environment twin and its schema (with the help text). */
export const serveSettings = {
  port: {
    flag: '--port <n>',
    env: 'PDFRENDER_PORT',
    schema: numberField({ min: 0, max: 65535, integer: true })
      .prefault(3000)
      .describe('port to listen on; 0 picks a free one (default 3000)'),
  },
  host: {
    flag: '--host <address>',
    env: 'PDFRENDER_HOST',
    schema: z
      .string()
      .min(1)
      .prefault('127.0.0.1')
      .describe('address to listen on (default 127.0.0.1, this machine only)'),
  },
  dataDir: {
    flag: '--data-dir <dir>',
    env: 'PDFRENDER_DATA_DIR',
    schema: z
      .string()
      .min(1)
      .prefault('./.pdfrender')
      .describe('folder for the database and rendered files (default ./.pdfrender)'),
  },
  database: {
    flag: '--database <url>',
    env: 'PDFRENDER_DATABASE_URL',
    schema: databaseUrl
      .optional()
      .describe(
        'a PostgreSQL URL (postgres://user:password@host:5432/db): the queue, dedupe, rate limits, webhooks and rendered files of every instance pointed at it (default: SQLite in --data-dir)',
      ),
  },
  databaseTimeout: {
    flag: '--database-timeout <duration>',
    env: 'PDFRENDER_DATABASE_TIMEOUT',
    schema: durationField('30s')
      .pipe(z.number().min(1_000, 'must be at least 1s').max(600_000, 'must be at most 10m'))
      .prefault('30s')
      .describe(
        'with --database: how long one statement may go unanswered before the database counts as unreachable (a partition holds traffic without a reset); an enqueue whose answer is lost this way is looked up before the caller is answered (default 30s; 1s to 10m)',
      ),
  },
  files: {
    flag: '--files <location>',
    env: 'PDFRENDER_FILES',
    schema: filesLocationField
      .optional()
      .describe(
        'where rendered PDFs are kept: s3://bucket/prefix puts them in an S3 bucket (credentials and region from the AWS_* variables) (default: the data dir with SQLite, the database itself with --database)',
      ),
  },
  s3Endpoint: {
    flag: '--s3-endpoint <url>',
    env: 'PDFRENDER_S3_ENDPOINT',
    schema: s3EndpointField
      .optional()
      .describe(
        'the URL of an S3-compatible store (MinIO, Ceph) for --files s3://...; addressed path-style (default: AWS S3)',
      ),
  },
  rateLimit: {
    flag: '--rate-limit <n>',
    env: 'PDFRENDER_RATE_LIMIT',
    schema: numberField({ min: 1, integer: true })
      .prefault(60)
      .describe('render-sync requests per caller per minute (default 60)'),
  },
  concurrency: renderSettings.concurrency,
  maxPagesPerCaller: {
    flag: '--max-pages-per-caller <n>',
    env: 'PDFRENDER_MAX_PAGES_PER_CALLER',
    schema: numberField({ min: 1, max: 64, integer: true })
      .optional()
      .describe(
        'pages one caller (API key, else client address) may hold at once; with several callers one page more than --concurrency is kept for a caller holding none (default: --concurrency)',
      ),
  },
  pageWait: {
    flag: '--page-wait <duration>',
    env: 'PDFRENDER_PAGE_WAIT',
    schema: durationField('30s')
      .prefault('30s')
      .describe(
        'how long a render-sync request may wait for a page while other renders hold them all; past it, 503 BROWSER_BUSY with Retry-After (default 30s)',
      ),
  },
  apiKeys: {
    flag: '--api-key <key>',
    env: 'PDFRENDER_API_KEYS',
    schema: apiKeyList.describe(
      'an API key callers must send as "Authorization: Bearer <key>"; repeat for several (env: a comma list); none means no auth',
    ),
  },
  adminKeys: {
    flag: '--admin-key <key>',
    env: 'PDFRENDER_ADMIN_KEYS',
    schema: apiKeyList.describe(
      'an API key that also manages every key\'s webhook endpoints over /api/webhooks, may add global ones ("global": true), and reads every job\'s status and file; repeat for several (env: a comma list); it turns auth on like --api-key',
    ),
  },
  privateFiles: {
    flag: '--private-files',
    env: 'PDFRENDER_PRIVATE_FILES',
    schema: booleanField(
      'file downloads need the API key too; by default a file URL (its id is unguessable) downloads without it, as RenderPDF.io clients fetch it',
    ),
  },
  allowUnknownFields: {
    flag: '--allow-unknown-fields',
    env: 'PDFRENDER_ALLOW_UNKNOWN_FIELDS',
    schema: booleanField(
      'render a request that has fields pdfrender does not know, naming them in X-Pdfrender-Warnings, instead of refusing it (422), for clients that send fields of their own',
    ),
  },
  logFormat: {
    flag: '--log-format <format>',
    env: 'PDFRENDER_LOG_FORMAT',
    schema: z
      .enum(['pretty', 'json'])
      .prefault('pretty')
      .describe('the log on stderr (access lines, and errors with their causes): pretty or json (default pretty)'),
  },
  publicUrl: {
    flag: '--public-url <url>',
    env: 'PDFRENDER_PUBLIC_URL',
    schema: z
      .url({ protocol: /^https?$/ })
      .optional()
      .describe(
        "base of the absolute URLs in responses and webhooks, as callers reach the server (default: the address it listens on; never the request's Host)",
      ),
  },
  trustProxy: {
    flag: '--trust-proxy [hops|addresses]',
    env: 'PDFRENDER_TRUST_PROXY',
    schema: trustProxyField.describe(
      'take the client address from X-Forwarded-For, as written by the proxies you run: a number of hops (the bare flag is 1), or a comma list of proxy addresses, CIDR ranges or "loopback" (default: off)',
    ),
  },
  corsOrigins: {
    flag: '--cors-origin <origin>',
    env: 'PDFRENDER_CORS_ORIGINS',
    schema: originList.describe(
      'a web origin ("https://app.example.com") whose pages may call the API from a browser; repeat for several (env: a comma list); other cross-site browser requests are refused',
    ),
  },
  headersTimeout: {
    flag: '--headers-timeout <duration>',
    env: 'PDFRENDER_HEADERS_TIMEOUT',
    schema: durationField('20s')
      .prefault('20s')
      .describe('a client must send its request headers within this (default 20s)'),
  },
  requestTimeout: {
    flag: '--request-timeout <duration>',
    env: 'PDFRENDER_REQUEST_TIMEOUT',
    schema: durationField('60s')
      .prefault('60s')
      .describe(
        'a client must send its whole request, body included, within this; the render and the answer are not counted (default 60s)',
      ),
  },
  maxConnections: {
    flag: '--max-connections <n>',
    env: 'PDFRENDER_MAX_CONNECTIONS',
    schema: numberField({ min: 1, integer: true })
      .prefault(1000)
      .describe('open connections beyond which new ones are closed at once (default 1000)'),
  },
  maxConnectionsPerAddress: {
    flag: '--max-connections-per-address <n>',
    env: 'PDFRENDER_MAX_CONNECTIONS_PER_ADDRESS',
    schema: numberField({ min: 1, integer: true })
      .prefault(100)
      .describe(
        'open connections from one client address (an IPv6 one by its /64) beyond which its new ones are closed at once; a proxy --trust-proxy trusts is not counted (default 100)',
      ),
  },
  minUploadRate: {
    flag: '--min-upload-rate <size>',
    env: 'PDFRENDER_MIN_UPLOAD_RATE',
    schema: uploadRateField
      .prefault('1kb')
      .describe(
        'bytes per second a request body must keep up once --upload-grace is over, else 408 and the connection closes (default 1kb: 8 kbit/s, below a GPRS uplink)',
      ),
  },
  uploadGrace: {
    flag: '--upload-grace <duration>',
    env: 'PDFRENDER_UPLOAD_GRACE',
    schema: durationField('10s')
      .prefault('10s')
      .describe('how long a request body may arrive at any pace before --min-upload-rate applies (default 10s)'),
  },
  maxBody: {
    flag: '--max-body <size>',
    env: 'PDFRENDER_MAX_BODY',
    schema: byteSizeField().prefault('10mb').describe('largest request body (default 10mb)'),
  },
  retention: {
    flag: '--retention <duration>',
    env: 'PDFRENDER_RETENTION',
    schema: durationField('24h').prefault('24h').describe('how long rendered files stay downloadable (default 24h)'),
  },
  timeout: renderSettings.timeout,
  shutdownGrace: {
    flag: '--shutdown-grace <duration>',
    env: 'PDFRENDER_SHUTDOWN_GRACE',
    schema: durationField('30s')
      .prefault('30s')
      .describe(
        'how long a stopping server waits for renders in flight, sync and async; async jobs still rendering then go back to the queue (default 30s)',
      ),
  },
  maxPages: renderSettings.maxPages,
  maxRenderMemory: renderSettings.maxRenderMemory,
  browserRecycleAfter: renderSettings.browserRecycleAfter,
  browserHangTimeout: renderSettings.browserHangTimeout,
  maxQueue: {
    flag: '--max-queue <n>',
    env: 'PDFRENDER_MAX_QUEUE',
    schema: numberField({ min: 1, integer: true })
      .prefault(10_000)
      .describe('async jobs queued or rendering beyond which render-async answers 503 (default 10000)'),
  },
  maxQueuePerCaller: {
    flag: '--max-queue-per-caller <n>',
    env: 'PDFRENDER_MAX_QUEUE_PER_CALLER',
    schema: numberField({ min: 1, integer: true })
      .prefault(1000)
      .describe(
        'async jobs one caller (API key, else address) may have queued or rendering; beyond, render-async answers 503 (default 1000)',
      ),
  },
  maxQueueBytes: {
    flag: '--max-queue-bytes <size>',
    env: 'PDFRENDER_MAX_QUEUE_BYTES',
    schema: byteSizeField()
      .prefault('1gb')
      .describe(
        'request bytes the async jobs queued or rendering may hold on disk; beyond, render-async answers 503 (default 1gb)',
      ),
  },
  maxQueueBytesPerCaller: {
    flag: '--max-queue-bytes-per-caller <size>',
    env: 'PDFRENDER_MAX_QUEUE_BYTES_PER_CALLER',
    schema: byteSizeField()
      .prefault('200mb')
      .describe(
        "request bytes one caller's async jobs queued or rendering may hold; beyond, render-async answers 503 (default 200mb)",
      ),
  },
  busyTimeout: {
    flag: '--busy-timeout <duration>',
    env: 'PDFRENDER_BUSY_TIMEOUT',
    schema: durationField('10s')
      .prefault('10s')
      .describe(
        "how long a request's database write waits while another process holds the database's write lock, before it answers 503 DATABASE_BUSY; the wait never blocks other requests (default 10s)",
      ),
  },
  dedupeWindow: {
    flag: '--dedupe-window <duration>',
    env: 'PDFRENDER_DEDUPE_WINDOW',
    schema: durationField('60s')
      .prefault('60s')
      .describe(
        'how long a caller may not reuse an async identifier for another request; the same request again answers the job it queued (default 60s; with --database at least --database-timeout + 20s)',
      ),
  },
  maxAttempts: {
    flag: '--max-attempts <n>',
    env: 'PDFRENDER_MAX_ATTEMPTS',
    schema: numberField({ min: 1, max: 20, integer: true })
      .prefault(3)
      .describe(
        "render attempts before an async job fails (default 3); a failure of the document's own is not retried",
      ),
  },
  jobLease: {
    flag: '--job-lease <duration>',
    env: 'PDFRENDER_JOB_LEASE',
    schema: durationField('10s')
      .pipe(z.number().min(3_000, 'must be at least 3s').max(600_000, 'must be at most 10m'))
      .prefault('10s')
      .describe(
        'how long an async job a server claimed stays its own: the server renews it every third of this while rendering, so a job whose server died is rendered again by another after at most this long (default 10s; 3s to 10m)',
      ),
  },
  chrome: renderSettings.chrome,
  ...policySettings,
  webhookTimeout: {
    flag: '--webhook-timeout <duration>',
    env: 'PDFRENDER_WEBHOOK_TIMEOUT',
    schema: durationField('15s')
      .pipe(z.number().min(1_000, 'must be at least 1s').max(600_000, 'must be at most 10m'))
      .prefault('15s')
      .describe(
        'how long a webhook receiver has to answer a delivery before the attempt counts as failed and is retried with the same webhook-id (default 15s; 1s to 10m)',
      ),
  },
  webhookUserAgent: {
    flag: '--webhook-user-agent <value>',
    env: 'PDFRENDER_WEBHOOK_USER_AGENT',
    schema: headerValue
      .optional()
      .describe(
        'the User-Agent header of webhook deliveries (default "RenderPdfIoHTTP/1 (compatible; pdfrender/<version>)": RenderPDF.io\'s, which firewalls allow-list, then pdfrender\'s)',
      ),
  },
  playground: {
    flag: '--playground',
    negation: 'do not serve the playground, even on loopback',
    env: 'PDFRENDER_PLAYGROUND',
    schema: optionalBooleanField(
      'serve the playground at /: a page to edit a document, its header, footer and options, see the PDF beside them, and copy the equivalent curl command (default: on when listening on loopback without --public-url, off otherwise)',
    ),
  },
  metrics: {
    flag: '--metrics',
    env: 'PDFRENDER_METRICS',
    schema: booleanField(
      "serve Prometheus metrics at GET /metrics on the server's port, behind the API key when keys are set (off by default; docs/operating.md lists them)",
    ),
  },
  metricsPort: {
    flag: '--metrics-port <n>',
    env: 'PDFRENDER_METRICS_PORT',
    schema: numberField({ min: 0, max: 65535, integer: true })
      .optional()
      .describe(
        "serve GET /metrics on this port, a listener of its own on --metrics-host, instead of the server's port (implies --metrics; 0 picks a free one)",
      ),
  },
  metricsHost: {
    flag: '--metrics-host <address>',
    env: 'PDFRENDER_METRICS_HOST',
    schema: z
      .string()
      .min(1)
      .optional()
      .describe('address the --metrics-port listener binds (default: the same as --host)'),
  },
  metricsPublic: {
    flag: '--metrics-public',
    env: 'PDFRENDER_METRICS_PUBLIC',
    schema: booleanField(
      'GET /metrics answers without the API key, for a scraper on a network only it reaches (by default it needs a key when keys are set)',
    ),
  },
  allowPrivateWebhooks: {
    flag: '--allow-private-webhooks',
    env: 'PDFRENDER_ALLOW_PRIVATE_WEBHOOKS',
    schema: booleanField(
      'let webhook URLs point at loopback and private addresses (a receiver on this machine); refused by default',
    ),
  },
} satisfies Record<string, Setting>;

type Settings = typeof serveSettings;

/** What --dedupe-window must leave after --database-timeout: the 5 s a lost answer is looked for, and time for the caller to send again. */
const dedupeMarginMs = 20_000;

/**
 * Whether a server with these settings is reached from this machine only: bound to loopback, with no
 * --public-url saying a proxy makes it reachable elsewhere (the playground's default, and what the
 * start-up line says of it).
 */
export const reachedFromThisMachineOnly = (config: { host: string; publicUrl?: string | undefined }): boolean =>
  isLoopbackHost(config.host) && !config.publicUrl;

const serveConfigSchema = z
  .object(
    Object.fromEntries(Object.entries(serveSettings).map(([key, s]) => [key, s.schema])) as {
      [K in keyof Settings]: Settings[K]['schema'];
    },
  )
  // Node refuses a server whose headers may take longer than the whole request.
  .refine((config) => config.headersTimeout <= config.requestTimeout, {
    path: ['headersTimeout'],
    message: 'must not be longer than --request-timeout',
  })
  // A 504 OUTCOME_UNKNOWN comes up to --database-timeout and 5 s of looking after the enqueue, and
  // promises that the same request sent again answers its job: only while the identifier's window lasts.
  .refine((config) => !config.database || config.dedupeWindow >= config.databaseTimeout + dedupeMarginMs, {
    path: ['dedupeWindow'],
    message: `must be at least --database-timeout + ${dedupeMarginMs / 1000}s with --database, so that a request answered 504 OUTCOME_UNKNOWN can still be sent again safely`,
  })
  // As the host guard judges it: a loopback server without --public-url is reached from this machine only.
  .transform((config) => ({
    ...config,
    playground: config.playground ?? reachedFromThisMachineOnly(config),
    // An admin key is an API key too: accepted wherever one is, and counted as one.
    apiKeys: [...new Set([...config.apiKeys, ...config.adminKeys])],
    // A metrics port is asked for to serve metrics there.
    metrics: config.metrics || config.metricsPort !== undefined,
    metricsHost: config.metricsHost ?? config.host,
  }));

/** The server's validated settings. */
export type ServeConfig = Readonly<z.output<typeof serveConfigSchema>>;

/** How an error names a setting: its flag and its environment twin, since either may have set the bad value. */
export function settingLabel(setting: Setting): string {
  return `${flagName(setting.flag)} (${setting.env})`;
}

// What a setting was given: its flag's value, else its environment variable's (empty counts as unset).
function settingInput(setting: Setting, fromFlag: unknown, env: NodeJS.ProcessEnv): unknown {
  const present = Array.isArray(fromFlag) ? fromFlag.length > 0 : fromFlag !== undefined;
  return present ? fromFlag : env[setting.env] === '' ? undefined : env[setting.env];
}

/** One setting's value from its flag, else its environment variable, else its default, as serve reads it. */
export function resolveSetting<S extends Setting>(
  setting: S,
  fromFlag: unknown,
  env: NodeJS.ProcessEnv,
): z.output<S['schema']> {
  return parseNamed(setting.schema as S['schema'], settingInput(setting, fromFlag, env), settingLabel(setting));
}

/** Build the config from parsed flags (commander's option object) and the environment. */
export function loadServeConfig(flags: Record<string, unknown>, env: NodeJS.ProcessEnv, cwd: string): ServeConfig {
  const input = Object.fromEntries(
    Object.entries(serveSettings).map(([key, setting]) => [key, settingInput(setting, flags[key], env)]),
  );
  try {
    const config = parseWith(serveConfigSchema, input);
    return Object.freeze({ ...config, dataDir: resolve(cwd, config.dataDir) });
  } catch (error) {
    if (!(error instanceof PdfRenderError) || !error.fieldErrors) throw error;
    throw labelFieldErrors(error.fieldErrors, (field) =>
      field in serveSettings ? settingLabel(serveSettings[field as keyof Settings]) : undefined,
    );
  }
}
