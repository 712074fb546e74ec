/**
 * GET /healthz (the process answers) and GET /readyz (the browser answers, the database takes
 * writes, the data dir is the one opened and has room); a check that fails says why in `reasons`.
 */
import type { Hono } from 'hono';
import { callerError } from '../errors.js';
import type { AppDeps } from './deps.js';

const readyTimeoutMs = 5_000;
/** How long the readiness probe waits for a write lock held elsewhere (a moment's lock is not unreadiness). */
const lockWaitMs = 1_000;

/** Mount the routes on `app`. */
export function healthRoutes(app: Hono<{ Variables: { apiKey: string | undefined } }>, deps: AppDeps): void {
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    const [browser, database, storage] = await Promise.all([browserAnswers(deps), databaseWritable(deps), deps.storage.check()]);
    const checks = { browser, database: database === null, storage: storage === null, accepting: !deps.lifecycle.draining };
    const reasons = { ...(database === null ? {} : { database }), ...(storage === null ? {} : { storage: `${storage.code}: ${storage.reason}` }) };
    const ready = Object.values(checks).every(Boolean);
    return c.json({ status: ready ? 'ready' : 'not ready', checks, ...(Object.keys(reasons).length > 0 ? { reasons } : {}) }, ready ? 200 : 503);
  });
}

async function browserAnswers(deps: AppDeps): Promise<boolean> {
  const timeout = new Promise<boolean>((resolve) => setTimeout(resolve, readyTimeoutMs, false).unref());
  return Promise.race([deps.engine.version().then(() => true, () => false), timeout]);
}

/** Null when a write would succeed, else why not. */
async function databaseWritable(deps: AppDeps): Promise<string | null> {
  try {
    // Taking the write lock and letting go proves a write would succeed, without writing.
    await deps.write(() => deps.db.exec('BEGIN IMMEDIATE; ROLLBACK'), { waitMs: lockWaitMs });
    return null;
  } catch (error) {
    const { code, message } = callerError(error);
    return `${code}: ${message}`;
  }
}
