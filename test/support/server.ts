/** A real pdfrender server on an ephemeral port, with a real SQLite data dir and a clock the test moves. */
import { loadServeConfig } from '../../src/server/config.js';
import { createEngine, type Engine } from '../../src/engine/engine.js';
import type { Resolver } from '../../src/network/resolve-checked.js';
import { serveEngineOptions } from '../../src/server/engine-options.js';
import { createApp } from '../../src/server/app.js';
import type { AccessLogEntry, AppDeps } from '../../src/server/deps.js';
import type { LogEvent } from '../../src/event-log.js';
import { listen } from '../../src/server/listen.js';
import { startRuntime } from '../../src/server/runtime.js';
import { openDb, type Db } from '../../src/store/sqlite/open-db.js';
import { databasePath } from '../../src/store/open-store.js';
import { executablePath } from './browser.js';
import { tempDir } from './files.js';

export interface TestServer {
  url: string;
  deps: AppDeps;
  /** The server's clock: `time` when fixed; with realClock, the real time plus however far the test moved `time`. */
  clock: { time: number; now(): number };
  logs: AccessLogEntry[];
  /** The operator's log (errors and their causes), as the server wrote it. */
  events: LogEvent[];
  /** The app's routes, as Hono registered them (method, path): what the server actually serves. */
  routes: Array<{ method: string; path: string }>;
  /** A connection of the test's own to the server's SQLite database, to look at rows (or plant a fault) directly. */
  readonly db: Db;
  close(): Promise<void>;
}

/** Start a server with serve flags (as the CLI would take them) on a shared or new engine. */
export async function startServer(
  flags: Record<string, unknown> = {},
  shared?: { engine: Engine },
  options: { realClock?: boolean; resolver?: Resolver } = {},
): Promise<TestServer> {
  const dataDir = await tempDir();
  // Every webhook receiver in the tests listens on loopback, which the server refuses by default.
  const config = loadServeConfig({ port: 0, dataDir, allowPrivateWebhooks: true, ...flags }, {}, dataDir);
  // As run-server.ts builds it (two pages unless the test asks), with a DNS answer of the test's choosing when it gives one.
  const engine =
    shared?.engine ??
    createEngine({
      executablePath,
      ...serveEngineOptions(config),
      concurrency: flags.concurrency ? config.concurrency : 2,
      resolver: options.resolver,
    });
  // A fixed clock the test moves, or the real one (webhook timestamps are checked against it), which
  // the test moves ahead the same way (to a retry's time, say, rather than wait for it).
  const start = Date.UTC(2026, 10, 22, 12, 0, 0);
  const clock: TestServer['clock'] = {
    time: start,
    now: () => (options.realClock ? Date.now() + clock.time - start : clock.time),
  };
  const logs: AccessLogEntry[] = [];
  const events: LogEvent[] = [];
  const runtime = await startRuntime({
    config,
    engine,
    clock,
    log: (entry) => logs.push(entry),
    events: (event) => events.push(event),
    version: '0.0.0-test',
    resolver: options.resolver,
  });
  const { deps } = runtime;
  const app = createApp(deps, '0.0.0-test');
  // As run-server.ts listens: the same timeouts, connection cap and recorded address.
  const server = await listen(app, config, deps);
  const { port } = deps.listening.address!;
  let db: Db | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    routes: app.routes.map(({ method, path }) => ({ method, path })),
    deps,
    clock,
    logs,
    events,
    get db() {
      return (db ??= openDb(databasePath(config.dataDir)));
    },
    async close() {
      db?.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ('closeAllConnections' in server) server.closeAllConnections();
      });
      await runtime.close();
      if (!shared) await engine.close();
    },
  };
}

/** POST `body` as JSON to `path` of `server`. */
export const postJson = (server: TestServer, path: string, body: unknown): Promise<Response> =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
