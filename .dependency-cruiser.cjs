/**
 * The layers of src/, lowest first: a module may import from its own layer and the ones below it,
 * never from one above. `npm run depcruise` checks it (and that there are no import cycles).
 *
 *   basics    errors, lengths, page ranges, the request schema and its fields, the clock, races
 *             against a signal or a timer, the operator's event log, paper formats, the webhook
 *             secret format, files written atomically; markup/: the HTML and CSS scanners
 *   network   the network policy, pinned requests, the egress proxy
 *   engine    Chromium: discovery, launch, the page pool, renderPdf()
 *   answers   the API's answers and paths (api-answers.ts names the engine's failure codes)
 *   store     the one Store interface, SQLite and PostgreSQL behind it, files on disk or S3
 *   queue, webhooks
 *             the async worker loop; webhook signing, delivery and policy (peers: neither imports the other)
 *   server    the Hono app, its routes and the runtime; config.ts, the serve settings
 *   cli       the commands; main.ts
 *   index.ts  the public API
 */
const layers = [
  { name: 'basics', path: '^src/(markup/|[^/]+\\.ts$)', pathNot: '^src/(api-answers|api-paths|config|index)\\.ts$' },
  { name: 'network', path: '^src/network/' },
  { name: 'engine', path: '^src/engine/' },
  { name: 'answers', path: '^src/(api-answers|api-paths)\\.ts$' },
  { name: 'store', path: '^src/store/' },
  { name: 'queue', path: '^src/queue/', peers: '^src/webhooks/' },
  { name: 'webhooks', path: '^src/webhooks/', peers: '^src/queue/' },
  { name: 'server', path: '^src/(server/|config\\.ts$)' },
  { name: 'cli', path: '^src/cli/' },
  { name: 'index', path: '^src/index\\.ts$' },
];

// Each layer may not import any layer listed after it, nor its peer.
const upward = layers.map((layer, index) => ({
  name: `no-${layer.name}-upward`,
  comment: `${layer.name} imports only from itself and the layers below it (see the list at the top of .dependency-cruiser.cjs)`,
  severity: 'error',
  from: { path: layer.path, ...(layer.pathNot ? { pathNot: layer.pathNot } : {}) },
  to: { path: [...layers.slice(index + 1).map((above) => above.path), ...(layer.peers ? [layer.peers] : [])].join('|') || '^$' },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...upward,
    { name: 'no-circular', comment: 'an import cycle ties modules that should stand apart', severity: 'error', from: {}, to: { circular: true } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: they tie the layers as much as values do.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
