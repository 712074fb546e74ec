/**
 * GET /healthz (the process answers) and GET /readyz (the browser answers, the database takes
 * writes, the data dir is the one opened and has room); a check that fails says why in `reasons`.
 */
import type { Hono } from 'hono';
import type { z } from 'zod';
import type { healthAnswers } from '../api/api-answers.js';
import { callerError } from '../../errors.js';
import { raceAbort } from '../../race.js';
import type { AppDeps } from '../deps.js';

/** How long the readiness probe waits for a write lock held elsewhere (a moment's lock is not unreadiness). */
const lockWaitMs = 1_000;
/**
 * How long it waits for the database at all: a frozen or cut-off database holds a connection, or a
 * statement, until the pool's own timeouts (10 s, 30 s), and a probe must answer before its caller
 * gives up on it.
 */
const answerWithinMs = 5_000;

/** Mount the routes on `app`. */
export function healthRoutes(app: Hono<{ Variables: { apiKey: string | undefined } }>, deps: AppDeps): void {
  app.get('/healthz', (c) => c.json({ status: 'ok' } satisfies z.infer<typeof healthAnswers.live>));
  app.get('/readyz', async (c) => {
    // The browser's state as its watchdog last saw it: a hung browser must not make this wait.
    const [database, storage] = await Promise.all([databaseWritable(deps), deps.storage.check()]);
    const checks = {
      browser: deps.engine.browserReady(),
      database: database === null,
      storage: storage === null,
      accepting: !deps.lifecycle.draining,
    };
    const reasons = {
      ...(database === null ? {} : { database }),
      ...(storage === null ? {} : { storage: `${storage.code}: ${storage.reason}` }),
    };
    const ready = Object.values(checks).every(Boolean);
    return c.json(
      {
        status: ready ? 'ready' : 'not ready',
        checks,
        ...(Object.keys(reasons).length > 0 ? { reasons } : {}),
      } satisfies z.infer<typeof healthAnswers.ready>,
      ready ? 200 : 503,
    );
  });
}

/** Null when a write would succeed, else why not. */
async function databaseWritable(deps: AppDeps): Promise<string | null> {
  try {
    // Proves a write would succeed, without writing (SQLite: the write lock taken and let go).
    await raceAbort(deps.waiting(lockWaitMs).ping(), AbortSignal.timeout(answerWithinMs));
    return null;
  } catch (error) {
    if (error instanceof DOMException && error.name === 'TimeoutError')
      return `STORAGE_UNAVAILABLE: the database did not answer within ${answerWithinMs / 1000} s`;
    const { code, message } = callerError(error);
    return `${code}: ${message}`;
  }
}
