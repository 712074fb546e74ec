/**
 * A throw-away PostgreSQL cluster for one test file: initdb in a temp folder owned by the postgres
 * user (initdb refuses root, and the tests run as root here and in CI), pg_ctl on a free loopback
 * port, fsync off (nothing in it must survive a crash), stopped and removed after. When it cannot
 * start, the error says why and the test fails: a PostgreSQL test never skips.
 */
import { execFile } from 'node:child_process';
import { chmod, chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

export interface Cluster {
  port: number;
  /** The URL of database `name` (created by `createDatabase`). */
  url(name: string): string;
  /** A new empty database; returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Pools opened through `pool`, ended by `stop` if still open. */
  pool(url: string, max?: number): pg.Pool;
  /** How long initdb and the start took, ms (for the report, never asserted). */
  startedInMs: number;
  stop(): Promise<void>;
}

/**
 * End a pool, waiting at most a second: one whose connection a failed test left checked out would
 * wait for its release for ever (its server is stopped already, so nothing is left open).
 */
export async function endPool(pool: pg.Pool): Promise<void> {
  if (pool.ended) return;
  await Promise.race([pool.end().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
}

/** A free loopback TCP port (freed again before pg_ctl binds it). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Run a PostgreSQL tool as the postgres user when we are root (initdb will not run as root). */
async function asPostgres(tool: string, args: string[]): Promise<void> {
  const [file, argv] = userInfo().uid === 0 ? ['runuser', ['-u', 'postgres', '--', tool, ...args]] : [tool, args];
  try {
    await run(file, argv, { timeout: 60_000 });
  } catch (error) {
    const { stderr, stdout, message } = error as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${tool} failed: ${(stderr || stdout || message).trim()}`);
  }
}

/**
 * Start a cluster; throws (never skips) with the reason when PostgreSQL is missing or cannot start.
 * Install it with `apt-get install -y postgresql` (Debian puts initdb under /usr/lib/postgresql/<v>/bin).
 */
export async function startCluster(): Promise<Cluster> {
  const started = performance.now();
  const root = await mkdtemp(join(tmpdir(), 'pdfrender-pg-'));
  const data = join(root, 'data');
  const pools: pg.Pool[] = [];
  const env = await postgresBin();
  if (userInfo().uid === 0) {
    const { stdout } = await run('id', ['-u', 'postgres']).catch(() => {
      throw new Error('PostgreSQL tests need the `postgres` user to run initdb as (install Debian\'s postgresql package: apt-get install -y postgresql)');
    });
    const uid = Number(stdout.trim());
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(root, uid, Number(gid.trim()));
  }
  await chmod(root, 0o700);
  const port = await freePort();
  try {
    await asPostgres(env('initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
    const options = `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${root} -c fsync=off -c full_page_writes=off -c synchronous_commit=off -c max_connections=100`;
    await asPostgres(env('pg_ctl'), ['-D', data, '-l', join(root, 'log'), '-o', options, '-w', '-t', '60', 'start']);
  } catch (error) {
    const log = await readFile(join(root, 'log'), 'utf8').catch(() => '');
    await rm(root, { recursive: true, force: true });
    throw new Error(`the test PostgreSQL cluster could not start: ${(error as Error).message}${log ? `\n${log.trim()}` : ''}`);
  }
  const url = (name: string) => `postgres://postgres@127.0.0.1:${port}/${name}`;
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
      pools.push(pool);
      return pool;
    },
    async stop() {
      // The server first (immediate: nothing in it is kept), so no pool waits on a connection left checked out.
      await asPostgres(env('pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
      await Promise.all(pools.splice(0).map(endPool));
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** Where initdb and pg_ctl are: on PATH, or Debian's /usr/lib/postgresql/<newest>/bin. */
async function postgresBin(): Promise<(tool: string) => string> {
  const onPath = await run('sh', ['-c', 'command -v initdb']).then(({ stdout }) => stdout.trim() !== '', () => false);
  if (onPath) return (tool) => tool;
  const { stdout } = await run('sh', ['-c', 'ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1']);
  const dir = stdout.trim();
  if (!dir) throw new Error('PostgreSQL is not installed (no initdb on PATH or under /usr/lib/postgresql): apt-get install -y postgresql');
  return (tool) => join(dir, tool);
}
