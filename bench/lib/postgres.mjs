/**
 * A throw-away PostgreSQL cluster, for the tests (test/support/postgres.ts re-exports it) and the
 * bench's scale-out section: initdb in a temp folder owned by the postgres user (initdb refuses
 * root, and the tests run as root here and in CI), pg_ctl on a free loopback port, fsync off
 * (nothing in it must survive a crash of the machine), stopped and removed after. When it cannot
 * start, the error says why: a PostgreSQL test never skips. It can be restarted (`pg_ctl restart
 * -m fast`, as a minor-version upgrade does) or crashed and started again (`-m immediate`, as a
 * failover looks to its clients) on the same port with the same settings. postgres.d.mts gives
 * TypeScript the types.
 */
import { execFile } from 'node:child_process';
import { chmod, chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/**
 * End a pool, waiting at most a second: one whose connection a failed test left checked out would
 * wait for its release for ever (its server is stopped already, so nothing is left open).
 */
export async function endPool(pool) {
  if (pool.ended) return;
  await Promise.race([pool.end().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
}

/** A free loopback TCP port (freed again before its user binds it: pg_ctl, Prometheus). */
export async function freePort() {
  const server = createServer();
  await new Promise((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Run a PostgreSQL tool as the postgres user when we are root (initdb will not run as root). */
async function asPostgres(tool, args) {
  const [file, argv] = userInfo().uid === 0 ? ['runuser', ['-u', 'postgres', '--', tool, ...args]] : [tool, args];
  try {
    await run(file, argv, { timeout: 60_000 });
  } catch (error) {
    throw new Error(`${tool} failed: ${(error.stderr || error.stdout || error.message).trim()}`);
  }
}

/** Where initdb and pg_ctl are: on PATH, or Debian's /usr/lib/postgresql/<newest>/bin. */
async function postgresBin() {
  const onPath = await run('sh', ['-c', 'command -v initdb']).then(
    ({ stdout }) => stdout.trim() !== '',
    () => false,
  );
  if (onPath) return (tool) => tool;
  const { stdout } = await run('sh', ['-c', 'ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1']);
  const dir = stdout.trim();
  if (!dir)
    throw new Error(
      'PostgreSQL is not installed (no initdb on PATH or under /usr/lib/postgresql): apt-get install -y postgresql',
    );
  return (tool) => join(dir, tool);
}

/**
 * Start a cluster; throws (never skips) with the reason when PostgreSQL is missing or cannot start.
 * `maxConnections` bounds the server's connections (default 100). `durableCommits` turns
 * synchronous_commit back on, so an acknowledged commit survives a crash of the server (crash,
 * restart -m immediate); off by default, when the last commits before such a crash may be lost.
 * Neither survives a crash of the machine (fsync stays off). Install it with
 * `apt-get install -y postgresql` (Debian puts initdb under /usr/lib/postgresql/<v>/bin).
 */
export async function startCluster({ maxConnections = 100, durableCommits = false } = {}) {
  const started = performance.now();
  const root = await mkdtemp(join(tmpdir(), 'pdfrender-pg-'));
  const data = join(root, 'data');
  const pools = [];
  const env = await postgresBin();
  if (userInfo().uid === 0) {
    const { stdout } = await run('id', ['-u', 'postgres']).catch(() => {
      throw new Error(
        "PostgreSQL tests need the `postgres` user to run initdb as (install Debian's postgresql package: apt-get install -y postgresql)",
      );
    });
    const uid = Number(stdout.trim());
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(root, uid, Number(gid.trim()));
  }
  await chmod(root, 0o700);
  const port = await freePort();
  // Kept for restart and start: the same port and settings every time the server comes up.
  const options = `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${root} -c fsync=off -c full_page_writes=off -c synchronous_commit=${durableCommits ? 'on' : 'off'} -c max_connections=${maxConnections}`;
  const pgCtl = (args) => asPostgres(env('pg_ctl'), ['-D', data, ...args]);
  // -w: resolves once the server is ready to accept connections.
  const start = () => pgCtl(['-l', join(root, 'log'), '-o', options, '-w', '-t', '60', 'start']);
  try {
    await asPostgres(env('initdb'), [
      '-D',
      data,
      '-U',
      'postgres',
      '-A',
      'trust',
      '--no-sync',
      '-E',
      'UTF8',
      '--locale=C',
    ]);
    await start();
  } catch (error) {
    const log = await readFile(join(root, 'log'), 'utf8').catch(() => '');
    await rm(root, { recursive: true, force: true });
    throw new Error(`the test PostgreSQL cluster could not start: ${error.message}${log ? `\n${log.trim()}` : ''}`);
  }
  const url = (name) => `postgres://postgres@127.0.0.1:${port}/${name}`;
  return {
    port,
    url,
    startedInMs: Math.round(performance.now() - started),
    async createDatabase(name) {
      const admin = new pg.Client({ connectionString: url('postgres') });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE "${name}" STRATEGY FILE_COPY`);
      } finally {
        await admin.end();
      }
      return url(name);
    },
    pool(connectionString, max = 10) {
      const pool = new pg.Pool({ connectionString, max });
      // Its idle connections end when the cluster stops (before the pool, see stop): expected, not an error of the test.
      pool.on('error', () => undefined);
      pools.push(pool);
      return pool;
    },
    // -l is taken by restart too (pg_ctl's help leaves it out): without it the new server would
    // write to pg_ctl's stdout, which this process would then wait on for ever.
    restart: ({ mode = 'fast' } = {}) =>
      pgCtl(['-m', mode, '-l', join(root, 'log'), '-o', options, '-w', '-t', '60', 'restart']),
    crash: () => pgCtl(['-m', 'immediate', '-w', '-t', '60', 'stop']),
    start,
    log: () => readFile(join(root, 'log'), 'utf8').catch(() => ''),
    async stop() {
      // The server first (immediate: nothing in it is kept), so no pool waits on a connection left checked out.
      await asPostgres(env('pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
      await Promise.all(pools.splice(0).map(endPool));
      await rm(root, { recursive: true, force: true });
    },
  };
}
