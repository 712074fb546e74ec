/** GET /healthz (the process answers) and GET /readyz (the browser answers and the database takes writes). */
import type { Hono } from 'hono';
import type { AppDeps } from './deps.js';

/** Mount the routes on `app`. */
export function healthRoutes(app: Hono<{ Variables: { apiKey: string | undefined } }>, deps: AppDeps): void {
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    // The browser's state as its watchdog last saw it: a hung browser must not make this wait.
    const checks = { browser: deps.engine.browserReady(), database: databaseWritable(deps), accepting: !deps.lifecycle.draining };
    const ready = Object.values(checks).every(Boolean);
    return c.json({ status: ready ? 'ready' : 'not ready', checks }, ready ? 200 : 503);
  });
}

function databaseWritable(deps: AppDeps): boolean {
  try {
    // Taking the write lock and letting go proves a write would succeed, without writing.
    deps.db.exec('BEGIN IMMEDIATE; ROLLBACK');
    return true;
  } catch {
    return false;
  }
}
