/** A real pdfrender server on an ephemeral port, with a real SQLite data dir and a clock the test moves. */
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { loadServeConfig } from '../../src/config.js';
import { createEngine, type Engine } from '../../src/engine/engine.js';
import { createApp } from '../../src/server/app.js';
import type { AccessLogEntry, AppDeps } from '../../src/server/deps.js';
import { fileStore } from '../../src/store/file-store.js';
import { openDb } from '../../src/store/open-db.js';
import { rateWindows } from '../../src/store/rate-windows.js';
import { webhookEndpoints } from '../../src/store/webhook-endpoints.js';
import { executablePath } from './browser.js';
import { tempDir } from './files.js';

export interface TestServer {
  url: string;
  deps: AppDeps;
  clock: { time: number; now(): number };
  logs: AccessLogEntry[];
  close(): Promise<void>;
}

/** Start a server with serve flags (as the CLI would take them) on a shared or new engine. */
export async function startServer(flags: Record<string, unknown> = {}, shared?: { engine: Engine }): Promise<TestServer> {
  const dataDir = await tempDir();
  const config = loadServeConfig({ port: 0, dataDir, ...flags }, {}, dataDir);
  const db = openDb(join(dataDir, 'pdfrender.db'));
  const engine = shared?.engine ?? createEngine({ executablePath, concurrency: 2, timeoutMs: config.timeout });
  const clock = { time: Date.UTC(2026, 10, 22, 12, 0, 0), now: () => clock.time };
  const logs: AccessLogEntry[] = [];
  const deps: AppDeps = {
    config,
    engine,
    db,
    rateWindows: rateWindows(db),
    files: fileStore(db, join(dataDir, 'files')),
    webhooks: webhookEndpoints(db),
    clock,
    log: (entry) => logs.push(entry),
    lifecycle: { draining: false, inFlight: 0 },
  };
  const app = createApp(deps, '0.0.0-test');
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    deps,
    clock,
    logs,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ('closeAllConnections' in server) server.closeAllConnections();
      });
      if (!shared) await engine.close();
      db.close();
    },
  };
}
