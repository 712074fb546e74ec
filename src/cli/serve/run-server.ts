/**
 * The running server of `pdfrender serve`: opens the data dir, starts the engine and the Hono app,
 * and on SIGINT/SIGTERM stops accepting requests and async jobs, lets renders in flight finish
 * (bounded by --shutdown-grace, see stop-server.ts), then closes the browser and the database.
 */
import { reachedFromThisMachineOnly, type ServeConfig } from '../../server/config.js';
import { createEngine } from '../../engine/engine.js';
import { requireBrowser } from '../../engine/browser/find-browser.js';
import { eventLogWriter } from '../../event-log.js';
import { serveEngineOptions } from '../../server/engine-options.js';
import { valueWithin } from '../../race.js';
import { createApp } from '../../server/app.js';
import { accessLogWriter } from '../../server/edge/access-log.js';
import { listen } from '../../server/listen.js';
import { browserObserver } from '../../metrics/browser-observer.js';
import { createMetrics } from '../../metrics/metrics.js';
import { metricsApp } from '../../server/routes/metrics-route.js';
import { isLoopbackHost } from '../../network/address-spelling.js';
import { bracketed, isWildcard, type Listening } from '../../server/public-url.js';
import { startRuntime } from '../../server/runtime.js';
import { describeBackend } from '../../store/open-backend.js';
import { noOwner } from '../../store/owners.js';
import type { CliIO } from '../io.js';
import { stopServer } from './stop-server.js';
import { startTracing } from './start-tracing.js';

const sweepEveryMs = 60_000;
/** How long a stopping server waits at least for a sweep still going. */
const sweepWithinMs = 2_000;

/** Serve until io.signal aborts, then stop gracefully. */
export async function runServer(io: CliIO, config: ServeConfig, version: string): Promise<void> {
  const browser = requireBrowser({ chrome: config.chrome, env: io.env });
  const events = eventLogWriter(config.logFormat, (line) => io.stderr.write(`${line}\n`));
  // Before anything that makes spans; off (and the SDK not even loaded) unless OTEL_* ask for it.
  const tracing = await startTracing(io.env, version, (message) => events({ level: 'warn', message }));
  const metrics = createMetrics(version, config.metrics);
  const engine = createEngine({
    executablePath: browser.executablePath,
    ...serveEngineOptions(config),
    warn: (message) => events({ level: 'warn', message }),
    observe: browserObserver(metrics),
    dataDir: config.dataDir,
  });
  const runtime = await startRuntime({
    config,
    engine,
    env: io.env,
    log: accessLogWriter(config.logFormat, (line) => io.stderr.write(`${line}\n`)),
    events,
    version,
    metrics,
  });
  const { deps } = runtime;
  try {
    await engine.start();
    const sweep = async () => {
      const now = deps.clock.now();
      await deps.files.sweep(now);
      await deps.rateWindows.prune(now);
      // A finished job's row goes when its file does.
      const { heldExpired } = await deps.queue.sweep(now - config.dedupeWindow, now - config.retention);
      if (heldExpired > 0)
        deps.events({
          level: 'warn',
          message: `${heldExpired} webhook events held for disabled endpoints expired unsent with their jobs (--retention); \`pdfrender webhooks list\` shows what is still held`,
        });
    };
    await sweep();
    // One sweep at a time (a big files folder can take longer than the interval), and shutdown
    // gives the one running a moment before the database closes under it.
    let sweeping: Promise<void> | undefined;
    const sweeper = setInterval(() => {
      sweeping ??= sweep()
        .catch((error) => deps.events({ level: 'error', message: 'sweep failed; trying again in a minute', error }))
        .finally(() => (sweeping = undefined));
    }, sweepEveryMs);
    // Aborted when the shutdown grace runs out: renders still going answer 503 rather than vanish,
    // and async jobs still rendering go back to the queue (stop-server.ts).
    const stopRenders = new AbortController();
    const server = await listen(createApp(deps, version, { stopRenders: stopRenders.signal }), config, deps);
    const { port } = deps.listening.address!;
    // Its own listener, on --metrics-port, with the main one's connection bounds.
    const metricsListening: Listening = {};
    const metricsServer =
      config.metricsPort === undefined
        ? undefined
        : await listen(
            metricsApp(deps, metricsListening),
            { ...config, port: config.metricsPort, host: config.metricsHost },
            {
              listening: metricsListening,
              events,
            },
          ).catch(async (error: unknown) => {
            const closed = new Promise((resolve) => server.close(resolve));
            if ('closeAllConnections' in server) server.closeAllConnections();
            await closed;
            throw error;
          });
    const auth =
      config.apiKeys.length > 0
        ? `auth on (${config.apiKeys.length} API key${config.apiKeys.length === 1 ? '' : 's'})`
        : 'auth off';
    io.stderr.write(
      `pdfrender ${version} listening on http://${bracketed(config.host)}:${port} (${auth}; rate limit ${config.rateLimit}/min; ${describeBackend(config)}; ${await engine.sandbox()})\n`,
    );
    if (tracing) io.stderr.write(`pdfrender: traces to ${tracing.url} (OTLP/HTTP, JSON)\n`);
    if (config.metrics) {
      const where = metricsListening.address
        ? `http://${bracketed(config.metricsHost)}:${metricsListening.address.port}/metrics`
        : `/metrics on this port`;
      io.stderr.write(
        `pdfrender: Prometheus metrics at ${where} (${config.apiKeys.length > 0 && !config.metricsPublic ? 'API key required' : 'no key required'})\n`,
      );
    }
    // Relaxed defaults are said out loud at every start, so they are never on by accident.
    if (config.allowPrivateWebhooks)
      io.stderr.write(
        'pdfrender: --allow-private-webhooks is on: webhooks may be sent to this machine and private networks\n',
      );
    if (config.allowPrivateNetwork)
      io.stderr.write(
        'pdfrender: --allow-private-network is on: documents may reach this machine and private networks\n',
      );
    // Said at start, since servers that had API keys before kept every download behind them.
    if (config.apiKeys.length > 0 && !config.privateFiles)
      io.stderr.write(
        'pdfrender: file URLs download without the API key (their ids are unguessable, as RenderPDF.io clients expect); --private-files requires it\n',
      );
    // Endpoints from before owners (or added without --for-key) receive no key's events once keys are set.
    if (config.apiKeys.length > 0) {
      const unowned = (await deps.store.webhooks.list(noOwner)).length;
      if (unowned > 0)
        io.stderr.write(
          `pdfrender: ${unowned} webhook endpoint${unowned === 1 ? ' belongs' : 's belong'} to no API key and receive${unowned === 1 ? 's' : ''} no events while keys are set; give each to a key (\`pdfrender webhooks assign <id> --for-key <key>\`) or to every key (\`--global\`)\n`,
        );
    }
    if (!config.publicUrl && isWildcard(config.host)) {
      io.stderr.write(
        `pdfrender: no --public-url: file and status URLs name the local address each request arrived on; set --public-url to the address callers use\n`,
      );
    }
    if (config.playground) {
      // Public when others can reach it: bound elsewhere than loopback, or behind a proxy (--public-url).
      const local = reachedFromThisMachineOnly(config);
      io.stderr.write(
        local
          ? `pdfrender: playground at http://${bracketed(config.host)}:${port}/ (--no-playground turns it off)\n`
          : `pdfrender: the playground at / is public: anyone who can reach this server can load it (renders still need an API key when keys are set); --no-playground turns it off\n`,
      );
    }
    if (config.apiKeys.length === 0 && !isLoopbackHost(config.host)) {
      io.stderr.write(
        `pdfrender: warning: listening on ${config.host} with no API key: anyone who can reach this address can render; set --api-key\n`,
      );
    }
    await new Promise<void>((resolve) =>
      io.signal.aborted ? resolve() : io.signal.addEventListener('abort', () => resolve(), { once: true }),
    );
    // One budget for everything on the way out, counted from the signal.
    const graceEnds = Date.now() + config.shutdownGrace;
    clearInterval(sweeper);
    // Scraped until the server stops: a scrape during the drain shows it.
    await stopServer({ server, runtime, graceEnds, stopRenders, say: (line) => io.stderr.write(`${line}\n`) });
    if (metricsServer && 'closeAllConnections' in metricsServer) metricsServer.closeAllConnections();
    await new Promise((resolve) => (metricsServer ? metricsServer.close(resolve) : resolve(undefined)));
    // A sweep of a big files folder may still be going: it is waited for within what is left of the
    // grace (and a moment), not out (what it did not sweep, the next start does).
    await valueWithin(sweeping ?? Promise.resolve(), Math.max(sweepWithinMs, graceEnds - Date.now()), undefined);
  } finally {
    // The workers settle the jobs in hand (their renders need the engine), then the engine goes.
    await runtime.close();
    await engine.close();
    // Last, so the spans of the renders and deliveries that just finished go too.
    if (tracing && !(await tracing.shutdown()))
      events({
        level: 'warn',
        message: `tracing: the last spans could not be sent to ${tracing.url} within 2 s; they are lost`,
      });
  }
  io.stderr.write('pdfrender: stopped\n');
}
