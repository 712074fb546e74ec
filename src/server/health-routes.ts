/** GET /healthz (the process answers) and GET /readyz (the browser answers and the database takes writes). */
import type { Hono } from 'hono';
import type { AppDeps } from './deps.js';

const readyTimeoutMs = 5_000;

/** Mount the routes on `app`. */
export function healthRoutes(app: Hono<{ Variables: { apiKey: string | undefined } }>, deps: AppDeps): void {
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    const checks = { browser: await browserAnswers(deps), database: databaseWritable(deps), accepting: !deps.lifecycle.draining };
    const ready = Object.values(checks).every(Boolean);
    return c.json({ status: ready ? 'ready' : 'not ready', checks }, ready ? 200 : 503);
  });
}

async function browserAnswers(deps: AppDeps): Promise<boolean> {
  const timeout = new Promise<boolean>((resolve) => setTimeout(resolve, readyTimeoutMs, false).unref());
  return Promise.race([deps.engine.version().then(() => true, () => false), timeout]);
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
