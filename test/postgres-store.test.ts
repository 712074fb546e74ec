/**
 * What only PostgreSQL has to prove: several instances (here, several pools) on one database at
 * once. The same identifier sent to two at once gives one job; simultaneous enqueues cannot pass a
 * bound; 200 jobs claimed concurrently are each claimed once; migrations from three instances
 * starting together run once; a newer schema is refused; faults of the server come out as the
 * storage codes; the database's clock is the one leases follow.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import pg from 'pg';
import { isPdfRenderError } from '../src/errors.js';
import { databaseClock } from '../src/store/postgres/database-clock.js';
import { migratePostgres } from '../src/store/postgres/migrate.js';
import { openStore } from '../src/store/open-store.js';
import { postgresPool, postgresStore } from '../src/store/postgres/postgres-store.js';
import { postgresMigrations } from '../src/store/postgres/schema.js';
import { query, transaction } from '../src/store/postgres/sql.js';
import { postgresFault, storageFault } from '../src/store/storage-errors.js';
import { enqueueInput as job, roomyBounds as bounds } from './support/enqueue-input.js';
import { holdingProxy } from './support/holding-proxy.js';
import { emptyDatabase, freshDatabase, poolOn, postgresCluster, stopPostgres } from './support/store-backends.js';
import { until } from './support/wait.js';
import { webhookEvent } from '../src/server/api/job-event.js';

afterAll(stopPostgres);

const outcome = (call: Promise<{ status: string }>) =>
  call.then(
    (queued) => queued.status,
    (error: { code: string }) => error.code,
  );

/** Two instances' stores on one fresh database. */
async function twoInstances() {
  const { url, pool } = await freshDatabase();
  return [postgresStore(pool, webhookEvent), postgresStore(poolOn(url), webhookEvent)] as const;
}

describe('several instances on one database', () => {
  it('accept exactly one of the same identifier sent to both at once, every time, and answer the same request at both with one job', async () => {
    const [a, b] = await twoInstances();
    for (let round = 0; round < 20; round += 1) {
      const results = await Promise.all(
        [a, b].map((store, i) =>
          outcome(store.queue.enqueue(job({ identifier: `same-${round}`, request: { htmlContent: `<p>${i}</p>` } }))),
        ),
      );
      expect(results.sort()).toEqual(['DUPLICATE_IDENTIFIER', 'queued']);
      const retried = await Promise.all(
        [a, b].map((store) => store.queue.enqueue(job({ identifier: `retried-${round}` }))),
      );
      expect(retried[1]!.id).toBe(retried[0]!.id);
    }
  });

  it('never pass a queue bound with simultaneous enqueues', async () => {
    const [a, b] = await twoInstances();
    const tight = { ...bounds, maxQueue: 5 };
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => outcome((i % 2 ? a : b).queue.enqueue(job({ bounds: tight })))),
    );
    expect(results.filter((r) => r === 'queued')).toHaveLength(5);
    expect(results.filter((r) => r === 'QUEUE_FULL')).toHaveLength(15);
  });

  it('claim each of 200 jobs once, with four claimers on each of two instances', async () => {
    const [a, b] = await twoInstances();
    for (let i = 0; i < 200; i += 1) await a.queue.enqueue(job({ priority: i % 3 }));
    const claimed: string[] = [];
    const claimer = async (store: typeof a, name: string) => {
      for (
        let next = await store.queue.claim(name, 2_000_000, 60_000);
        next;
        next = await store.queue.claim(name, 2_000_000, 60_000)
      )
        claimed.push(next.id);
    };
    await Promise.all([a, b].flatMap((store, i) => [1, 2, 3, 4].map((n) => claimer(store, `instance-${i}-${n}`))));
    expect(claimed).toHaveLength(200);
    expect(new Set(claimed).size).toBe(200);
  });

  it('let an expired lease be re-claimed by another instance, and fence the stale holder off', async () => {
    const [a, b] = await twoInstances();
    const queued = await a.queue.enqueue(job({ now: 0 }));
    await a.queue.claim('a-worker', 100, 1_000);
    expect(await b.queue.requeueExpired(1_101)).toBe(1);
    expect(await b.queue.claim('b-worker', 1_200, 1_000)).toMatchObject({
      id: queued.id,
      claimedBy: 'b-worker',
      attempts: 2,
    });
    expect(await a.queue.heartbeat(queued.id, 'a-worker', 5_000)).toBe(false);
    expect(await a.queue.complete(queued.id, 'a-worker', 1_300, { fileId: 'f', pages: 1, bytes: 1 })).toBe(false);
    expect(await b.queue.complete(queued.id, 'b-worker', 1_300, { fileId: 'f', pages: 1, bytes: 1 })).toBe(true);
  });
});

describe('webhook deliveries shared by instances', () => {
  it('hold the per-endpoint cap across instances: attempts another instance has in flight count', async () => {
    const [a, b] = await twoInstances();
    const endpoint = await a.webhooks.add('https://example.com/hook', 0);
    for (let i = 0; i < 6; i += 1) await a.deliveries.queueEvent(`job_${i}`, { n: i }, 0);
    expect(await a.deliveries.claim(1_000, 10, 30_000, 4)).toHaveLength(4);
    // The other instance has nothing in flight itself, but the endpoint has 4: none for it.
    expect(await b.deliveries.claim(1_000, 10, 30_000, 4, {})).toEqual([]);
    const [first] = await a.deliveries.claim(1_000, 10, 30_000, 10);
    expect(first?.endpointId).toBe(endpoint.id);
  });
});

describe('an enqueue whose answer is lost (store alone, through a proxy that goes silent)', () => {
  /** A store on a fresh database through a holding proxy, its statements given up after 500 ms; no clock, so no deadline: only the session settles it. */
  async function throughProxy(learnSessions = true) {
    const { url, pool } = await freshDatabase();
    const proxy = await holdingProxy((await postgresCluster()).port);
    const target = new URL(url);
    target.port = String(proxy.port);
    const proxied = learnSessions
      ? postgresPool(target.href, { queryTimeoutMs: 500 })
      : new pg.Pool({ connectionString: target.href, query_timeout: 500 });
    proxied.on('error', () => undefined);
    onTestFinished(async () => {
      proxy.heal();
      await proxied.end().catch(() => undefined);
      proxy.close();
    });
    return { store: postgresStore(proxied, webhookEvent), proxy, pool };
  }
  const jobsNamed = async (pool: pg.Pool, identifier: string) =>
    (await pool.query('SELECT id FROM jobs WHERE identifier = $1', [identifier])).rows;

  it('answers the job when only the answer was held', async () => {
    const { store, proxy, pool } = await throughProxy();
    proxy.arm({ marker: 'pdfrender_enqueue_v3', when: 'after' });
    const queued = await store.queue.enqueue(job({ identifier: 'answer-held' }));
    expect(proxy.held).toBe(1);
    expect((await jobsNamed(pool, 'answer-held')).map((r) => r.id)).toEqual([queued.id]);
  });

  it('answers "not queued" once it has ended the silent session the statement never reached (no deadline here: the session settles it)', async () => {
    const { store, proxy, pool } = await throughProxy();
    proxy.arm({ marker: 'pdfrender_enqueue_v3', when: 'before' });
    const refused = await store.queue.enqueue(job({ identifier: 'statement-held' })).catch((e) => e);
    expect(proxy.held).toBe(1);
    expect(refused).toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
    expect(await jobsNamed(pool, 'statement-held')).toEqual([]);
    // The database ended that session: the statement still held at the proxy can never arrive.
    await until(() => proxy.holdingOpen === 0, 'the held session to be ended');
  });

  it('answers OUTCOME_UNKNOWN when it cannot tell which session sent the statement and no deadline bounds it', async () => {
    const { store, proxy, pool } = await throughProxy(false);
    proxy.arm({ marker: 'pdfrender_enqueue_v3', when: 'before' });
    const unknown = await store.queue.enqueue(job({ identifier: 'no-session' })).catch((e) => e);
    expect(unknown).toMatchObject({ code: 'OUTCOME_UNKNOWN', retryAfter: 5 });
    expect(await jobsNamed(pool, 'no-session')).toEqual([]);
  });

  it('queues nothing past its deadline, and the first enqueue function still works for instances of the version before', async () => {
    const { pool } = await freshDatabase();
    const call = (fn: string, identifier: string, extra: unknown[] = []) =>
      pool.query(
        `SELECT * FROM ${fn}($1, 'ip:1', $2, 0, '{}', 2, 'http://x', 3, 1000, 60000, 100, 1000000, 100, 1000000${extra.map((_, i) => `, $${i + 3}`).join('')})`,
        [`job_${identifier}`, identifier, ...extra],
      );
    const past = Date.now() - 1_000;
    expect((await call('pdfrender_enqueue_v2', 'late', ['digest', past])).rows[0]).toMatchObject({ verdict: 'late' });
    expect(await jobsNamed(pool, 'late')).toEqual([]);
    expect((await call('pdfrender_enqueue', 'old')).rows[0]).toMatchObject({ queued: true });
    // What the old function queued keeps no digest: the same identifier is refused again as before, never taken for a retry.
    expect((await call('pdfrender_enqueue_v2', 'old', ['digest', null])).rows[0]).toMatchObject({
      verdict: 'duplicate',
      replay_of: null,
      seen_at: '1000',
    });
  });
});

describe('migrations', () => {
  it('run once when three instances start at once, and a database written by a newer pdfrender is refused', async () => {
    const url = await emptyDatabase();
    const pools = [poolOn(url), poolOn(url), poolOn(url)];
    const before = await Promise.all(pools.map((pool) => migratePostgres(pool)));
    const latest = postgresMigrations.length;
    expect(before.sort()).toEqual([0, latest, latest]);
    expect((await pools[0]!.query('SELECT version FROM pdfrender_schema')).rows).toEqual([{ version: latest }]);
    await pools[0]!.query('UPDATE pdfrender_schema SET version = 99');
    const refused = await migratePostgres(pools[1]!).catch((error) => error);
    expect(isPdfRenderError(refused, 'STORAGE_UNAVAILABLE')).toBe(true);
    expect(refused.message).toMatch(
      /^the PostgreSQL database "store_\d+" was written by a newer pdfrender \(schema 99\); upgrade pdfrender to use it$/,
    );
  });
});

describe('openStore with a database URL (what the webhooks commands use)', () => {
  it("migrates an empty database and answers, counting time by the database's clock; a database it cannot reach is STORAGE_UNAVAILABLE", async () => {
    const opened = await openStore({ dataDir: '/nonexistent', database: await emptyDatabase(), eventOf: webhookEvent });
    await expect(opened.store.ping()).resolves.toBeUndefined();
    expect(await opened.store.webhooks.any()).toBe(false);
    expect(Math.abs(opened.now() - Date.now())).toBeLessThan(60_000);
    await opened.close();
    const refused = await openStore({
      dataDir: '/nonexistent',
      database: 'postgres://postgres:hunter2@127.0.0.1:1/none',
      eventOf: webhookEvent,
    }).catch((e) => e);
    // One line for the command to print: where (never the password) and what failed.
    expect(refused).toMatchObject({
      code: 'STORAGE_UNAVAILABLE',
      message: expect.stringMatching(/^PostgreSQL at 127\.0\.0\.1:1\/none: .*\(ECONNREFUSED\)$/),
    });
    expect(refused.message).not.toContain('hunter2');
  });

  it('says the server refused the credentials when the password is missing or wrong, never printing it', async () => {
    const url = new URL(await emptyDatabase());
    const admin = poolOn(url.href);
    await admin.query("CREATE ROLE locked LOGIN PASSWORD 'right-one'");
    await admin.query('GRANT ALL ON SCHEMA public TO locked');
    // This role alone must give a password (the cluster trusts every other): the rule goes first, as pg_hba.conf is read top down.
    const { rows } = await admin.query<{ hba_file: string }>('SHOW hba_file');
    const hba = rows[0]!.hba_file;
    await writeFile(hba, `host all locked 127.0.0.1/32 scram-sha-256\n${await readFile(hba, 'utf8')}`);
    await admin.query('SELECT pg_reload_conf()');
    const open = (password: string) =>
      openStore({
        dataDir: '/nonexistent',
        database: `postgres://locked${password}@${url.host}${url.pathname}`,
        eventOf: webhookEvent,
      }).then(
        (opened) => opened.close(),
        (error) => error,
      );
    const missing = await until(async () => {
      const error = await open('');
      return error?.code ? error : undefined;
    }, 'the reloaded pg_hba.conf to ask locked for a password');
    expect(missing).toMatchObject({
      code: 'STORAGE_UNAVAILABLE',
      message: `PostgreSQL at ${url.host}${url.pathname} refused user locked: it asks for a password and none was given; give the password in the --database URL or PGPASSWORD`,
    });
    const wrong = await open(':not-this-one');
    expect(wrong).toMatchObject({
      code: 'STORAGE_UNAVAILABLE',
      message: `PostgreSQL at ${url.host}${url.pathname} refused user locked: password authentication failed for user "locked" (28P01); give the password in the --database URL or PGPASSWORD`,
    });
    expect(wrong.message).not.toContain('not-this-one');
    await expect(open(':right-one')).resolves.toBeUndefined();
  });
});

describe('faults', () => {
  it('answer a refused connection with STORAGE_UNAVAILABLE', async () => {
    // Nothing listens on port 1 of the loopback.
    const store = postgresStore(postgresPool('postgres://postgres@127.0.0.1:1/none'), webhookEvent);
    const error = await store.queue.get('job_x').catch((e) => e);
    expect(error).toMatchObject({ code: 'STORAGE_UNAVAILABLE', retryAfter: 30 });
    expect(error.cause.code).toBe('ECONNREFUSED');
    await store.close();
  });

  it('answer a lock held past lock_timeout with DATABASE_BUSY, and a connection ended by the server with STORAGE_UNAVAILABLE', async () => {
    const { url, pool } = await freshDatabase();
    const impatient = postgresStore(postgresPool(url, { lockTimeoutMs: 50 }), webhookEvent);
    const patient = postgresStore(postgresPool(url, { lockTimeoutMs: 60_000 }), webhookEvent);
    const queued = await impatient.queue.enqueue(job());
    await impatient.queue.claim('w', 2_000_000, 1_000);
    const holder = await pool.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM jobs WHERE id = $1 FOR UPDATE', [queued.id]);
    expect(await impatient.queue.heartbeat(queued.id, 'w', 2_010_000).catch((e) => e)).toMatchObject({
      code: 'DATABASE_BUSY',
      retryAfter: 5,
      cause: { code: '55P03' },
    });
    // The patient one waits on the lock until the server ends its connection (an administrator, a restart).
    const waiting = patient.queue.heartbeat(queued.id, 'w', 2_010_000).catch((e) => e);
    const waiter = async () =>
      (
        await pool.query(
          "SELECT pid FROM pg_stat_activity WHERE application_name = 'pdfrender' AND wait_event_type = 'Lock'",
        )
      ).rows[0]?.pid;
    const pid = await until(waiter, 'the patient heartbeat to wait on the lock');
    await pool.query('SELECT pg_terminate_backend($1)', [pid]);
    expect(await waiting).toMatchObject({ code: 'STORAGE_UNAVAILABLE', cause: { code: '57P01' } });
    await holder.query('ROLLBACK');
    holder.release();
    // Both go on once the lock is free: the pool replaced the dead connection.
    expect(await patient.queue.heartbeat(queued.id, 'w', 2_010_000)).toBe(true);
    expect(await impatient.queue.heartbeat(queued.id, 'w', 2_020_000)).toBe(true);
    await Promise.all([impatient.close(), patient.close()]);
  });

  it('survive the server ending a session held inside a transaction between two statements: the transaction fails as STORAGE_UNAVAILABLE, the process lives', async () => {
    const { url, pool } = await freshDatabase();
    const store = postgresPool(url);
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    // An 'error' event with no listener is thrown from the socket's callback: uncaught, it ends a server.
    process.on('uncaughtException', onUncaught);
    try {
      const outcome = await transaction(store, async (tx) => {
        const { pid } = (await query<{ pid: number }>(tx, 'SELECT pg_backend_pid() AS pid')).rows[0]!;
        // Another connection ends this session while it sits idle in its transaction (a restart, a failover).
        await pool.query('SELECT pg_terminate_backend($1)', [pid]);
        await until(
          async () => (await pool.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount === 0,
          'the session to end',
        );
        // The end reaches the client as an 'error' event before the next statement goes.
        await new Promise((resolve) => setTimeout(resolve, 100));
        await query(tx, 'SELECT 1');
      }).catch((error: unknown) => error);
      expect(outcome).toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
      expect(uncaught).toEqual([]);
      // The dead connection was dropped, not handed out again: the next transaction works.
      expect(
        await transaction(store, async (tx) => (await query<{ one: number }>(tx, 'SELECT 1 AS one')).rows[0]!.one),
      ).toBe(1);
    } finally {
      process.off('uncaughtException', onUncaught);
      await store.end();
    }
  });

  it('map the faults that cannot be made here (a full disk, a serialization failure, a deadlock, a broken pipe) by their codes', () => {
    const sent = (code: string) =>
      Object.assign(new pg.DatabaseError('from the server', 0, 'error'), { code, severity: 'ERROR' });
    expect(storageFault(sent('53100'))).toMatchObject({
      code: 'STORAGE_FULL',
      message: "the server's database is full, so nothing more can be stored there; try again later",
    });
    for (const code of ['40001', '40P01'])
      expect(storageFault(sent(code))).toMatchObject({ code: 'DATABASE_BUSY', retryAfter: 5 });
    // Out of connections is load, not an outage, and says so.
    expect(storageFault(sent('53300'))).toMatchObject({
      code: 'DATABASE_BUSY',
      message: "the server's database has no connection to spare (too many connections, 53300); try again shortly",
    });
    expect(postgresFault(new Error('timeout exceeded when trying to connect'))).toMatchObject({
      code: 'DATABASE_BUSY',
      message:
        'every connection this server has to its database is in use, and none came free in time; try again shortly',
    });
    for (const code of ['08006', '57P01', '57P03'])
      expect(storageFault(sent(code))).toMatchObject({ code: 'STORAGE_UNAVAILABLE', retryAfter: 30 });
    // A statement's own error (a unique violation) is not the storage's.
    expect(storageFault(sent('23505'))).toBeUndefined();
    expect(postgresFault(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))).toMatchObject({
      code: 'STORAGE_UNAVAILABLE',
    });
    expect(postgresFault(new Error('Connection terminated unexpectedly'))).toMatchObject({
      code: 'STORAGE_UNAVAILABLE',
    });
    expect(postgresFault(new TypeError('a bug'))).toBeUndefined();
  });

  it('fails ping on a database that cannot take writes', async () => {
    const { url, pool } = await freshDatabase();
    const store = postgresStore(postgresPool(url), webhookEvent);
    await expect(store.ping()).resolves.toBeUndefined();
    await pool.query(`ALTER DATABASE "${new URL(url).pathname.slice(1)}" SET default_transaction_read_only = on`);
    const readOnly = postgresStore(postgresPool(url), webhookEvent);
    expect(await readOnly.ping().catch((e) => e)).toMatchObject({
      code: 'STORAGE_UNAVAILABLE',
      message: expect.stringMatching(/read-only/),
    });
    await Promise.all([store.close(), readOnly.close()]);
  });
});

describe('databaseClock', () => {
  it("follows the database server's clock, not this machine's", async () => {
    const { url, pool } = await freshDatabase();
    // A database whose clock is an hour ahead: clock_timestamp() shadowed for connections that put this schema first.
    await pool.query(
      `CREATE SCHEMA skewed; CREATE FUNCTION skewed.clock_timestamp() RETURNS timestamptz LANGUAGE sql AS $$ SELECT pg_catalog.clock_timestamp() + interval '1 hour' $$`,
    );
    // onConnect, not a 'connect' listener: the pool waits for the SET before handing the connection
    // out, where a listener's query would still be queued under the caller's (pg 9 refuses that).
    const skewed = new pg.Pool({
      connectionString: url,
      onConnect: (client) => client.query('SET search_path = skewed, pg_catalog, public'),
    });
    const clock = await databaseClock(skewed);
    try {
      expect(Math.abs(clock.offsetMs() - 3_600_000)).toBeLessThan(1_000);
      const straight = await databaseClock(pool);
      expect(Math.abs(straight.offsetMs())).toBeLessThan(1_000);
      straight.stop();
    } finally {
      clock.stop();
      await skewed.end();
    }
  });
});
