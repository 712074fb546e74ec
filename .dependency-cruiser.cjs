/**
 * The layers of src/, lowest first: a module may import from its own layer and the ones below it,
 * never from one above. `npm run depcruise` checks it (and that there are no import cycles).
 *
 *   tracing   spans through OpenTelemetry's API alone (serve starts the SDK: cli/serve/start-tracing.ts);
 *             it knows nothing of pdfrender's, so every layer may trace
 *   basics    errors, lengths, page ranges, the request schema and its fields, the clock, races
 *             against a signal or a timer, the operator's event log, paper formats, the webhook
 *             secret format, files written atomically, a request's route pattern; markup/: the HTML and
 *             CSS scanners
 *   network   the network policy, pinned requests, the egress proxy
 *   engine    Chromium: discovery, launch, the page pool, renderPdf()
 *   store     the one Store contract, SQLite and PostgreSQL behind it, files on disk or S3; a finished
 *             job's webhook event is made by a builder the server passes in
 *   queue, webhooks
 *             the async worker loop; webhook signing, delivery and policy (peers: neither imports the other)
 *   metrics   the Prometheus registry and what counts into it (a metered engine, the gauges read at a scrape)
 *   server    the Hono app and the runtime (root), routes/, edge/ (guards, limits, the caller, the access
 *             log), api/ (the API's answers, paths and OpenAPI document), playground/; config.ts, the
 *             serve settings
 *   cli       the commands; main.ts
 *   index.ts  the public API
 */
const layers = [
  { name: 'tracing', path: '^src/tracing/' },
  { name: 'basics', path: '^src/(markup/|[^/]+\\.ts$)', pathNot: '^src/index\\.ts$' },
  { name: 'network', path: '^src/network/' },
  { name: 'engine', path: '^src/engine/' },
  { name: 'store', path: '^src/store/' },
  { name: 'queue', path: '^src/queue/', peers: '^src/webhooks/' },
  { name: 'webhooks', path: '^src/webhooks/', peers: '^src/queue/' },
  { name: 'metrics', path: '^src/metrics/' },
  { name: 'server', path: '^src/server/' },
  { name: 'cli', path: '^src/cli/' },
  { name: 'index', path: '^src/index\\.ts$' },
];

// Each layer may not import any layer listed after it, nor its peer.
const upward = layers.map((layer, index) => ({
  name: `no-${layer.name}-upward`,
  comment: `${layer.name} imports only from itself and the layers below it (see the list at the top of .dependency-cruiser.cjs)`,
  severity: 'error',
  from: { path: layer.path, ...(layer.pathNot ? { pathNot: layer.pathNot } : {}) },
  to: {
    path:
      [...layers.slice(index + 1).map((above) => above.path), ...(layer.peers ? [layer.peers] : [])].join('|') || '^$',
  },
}));

/**
 * Two rooms of one folder that stand apart: neither imports the other's files (what they share
 * lives at the folder's root). `a` and `b` are paths below src/.
 */
const standApart = (a, b, comment) =>
  [
    [a, b],
    [b, a],
  ].map(([from, to]) => ({
    name: `no-${to.split('/').at(-1)}-from-${from.split('/').at(-1)}`,
    comment,
    from: { path: `^src/${from}/` },
    to: { path: `^src/${to}/` },
  }));

/**
 * The store's rooms: its root holds the contract and the rules both backends share, and the
 * assembly that picks a backend (open-backend.ts, open-store.ts); sqlite/ and postgres/ are the two
 * backends, files/ where rendered PDFs' bytes live, health/ the watch over all of it. A backend is
 * reached only through the assembly: nothing outside store/ imports it, neither backend imports the
 * other, and the shared root imports no room.
 */
const storeRooms = [
  {
    name: 'no-store-backend-from-outside',
    comment:
      'a store backend (sqlite/, postgres/) is reached through store/open-backend.ts or store/open-store.ts, never imported directly',
    from: { path: '^src/', pathNot: '^src/store/' },
    to: { path: '^src/store/(sqlite|postgres)/' },
  },
  ...standApart(
    'store/sqlite',
    'store/postgres',
    "the SQLite and PostgreSQL backends share what they share through the store's root (contract.ts, the rules), not each other's files",
  ),
  {
    name: 'no-backend-from-statements',
    comment:
      'statements/ holds the SQL both backends run, written once with the dialect differences named (dialect.ts): it imports neither backend nor a driver',
    from: { path: '^src/store/statements/' },
    to: { path: '^src/store/(sqlite|postgres)/|^node_modules/(pg|better-sqlite3)/' },
  },
  {
    name: 'no-store-room-from-files-or-health',
    comment: 'files/ and health/ serve both backends: they import neither',
    from: { path: '^src/store/(files|health)/' },
    to: { path: '^src/store/(sqlite|postgres)/' },
  },
  {
    name: 'no-room-from-store-root',
    comment:
      "the store's root (the contract and the shared rules) imports no room; only the assembly (open-backend.ts, open-store.ts) puts them together",
    from: { path: '^src/store/[^/]+\\.ts$', pathNot: '^src/store/open-(backend|store)\\.ts$' },
    to: { path: '^src/store/(sqlite|postgres|files|health|statements)/' },
  },
].map((rule) => ({ severity: 'error', ...rule }));

/**
 * The engine's rooms: browser/ (the Chromium process: find, launch, user, watchdog, records),
 * pages/ (the page pool and one render on a page: guard, waits, print), templates/ (header and
 * footer templates: crawl, fetch, inline, rewrite), and at its root the render function (engine.ts)
 * and what the rooms share (the deadline, local file access, the report of URLs a render could not
 * load). The browser knows nothing of pages or templates; pages use the browser's host but not the
 * templates; templates touch neither a browser nor a page.
 */
const engineRooms = [
  {
    name: 'no-pages-or-templates-from-browser',
    comment: 'engine/browser/ is the Chromium process alone: it imports no page or template code',
    from: { path: '^src/engine/browser/' },
    to: { path: '^src/engine/(pages|templates)/' },
  },
  {
    name: 'no-templates-from-pages',
    comment: 'engine/pages/ renders a document on a page; templates are prepared before (engine.ts hands them over)',
    from: { path: '^src/engine/pages/' },
    to: { path: '^src/engine/templates/' },
  },
  {
    name: 'no-browser-or-pages-from-templates',
    comment: 'engine/templates/ prepares header and footer templates without a browser or a page',
    from: { path: '^src/engine/templates/' },
    to: { path: '^src/engine/(browser|pages)/' },
  },
].map((rule) => ({ severity: 'error', ...rule }));

/**
 * The server's rooms: edge/ (what every request meets first: the host and cross-site guards, auth,
 * the body limit, the rate limit, who the caller is, the access log), routes/ (one file per API
 * route or group), api/ (what the API answers: schemas, paths, webhook events, the OpenAPI
 * document), playground/ (the page and its assets); the app, its dependencies, the listener and the
 * runtime at the root. The edge answers before any route runs, so it imports none of them; routes
 * and the playground stand apart.
 */
const serverRooms = [
  {
    name: 'no-routes-from-edge',
    comment: 'server/edge/ runs before any route: it imports no route, API document or playground code',
    from: { path: '^src/server/edge/' },
    to: { path: '^src/server/(routes|api|playground)/' },
  },
  {
    name: 'no-routes-from-api',
    comment:
      'server/api/ is what the API answers and takes, as schemas and a document: it imports no route, edge or playground code',
    from: { path: '^src/server/api/' },
    to: { path: '^src/server/(routes|edge|playground)/' },
  },
  ...standApart('server/routes', 'server/playground', 'the API routes and the playground stand apart'),
].map((rule) => ({ severity: 'error', ...rule }));

/**
 * The CLI's rooms: render/ (`pdfrender render`: its flags, the batch, watch, progress output) and
 * serve/ (`pdfrender serve`: its flags, the run, the stop), with the program and what both share
 * (run options, flag sets, io) at the root. Neither command's room reaches into the other's.
 */
const cliRooms = standApart(
  'cli/render',
  'cli/serve',
  "`render` and `serve` share what they share through cli/'s root, not each other's files",
).map((rule) => ({ severity: 'error', ...rule }));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...upward,
    ...storeRooms,
    ...engineRooms,
    ...serverRooms,
    ...cliRooms,
    {
      name: 'no-circular',
      comment: 'an import cycle ties modules that should stand apart',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: they tie the layers as much as values do.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
