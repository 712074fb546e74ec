/**
 * The unit tier's setup file (vitest.unit.config.ts): there, starting a process and connecting to
 * PostgreSQL throw. Chromium, the CLI, `pdfrender serve`, initdb and pg_ctl, and s3rver are all
 * child processes, so a file listed in the tier that needs any of them fails at once, naming what
 * it started, instead of making the fast tier slow (bar the few quick commands `allowed` names).
 * `npm test` does not load this file.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';
import pg from 'pg';

const advice =
  'the unit tier (npm run test:unit) starts no browser, CLI, server process or database: take this file out of vitest.unit.config.ts (npm test runs it)';

/** A stand-in that throws, naming the call and its command. */
const refuse =
  (call: string) =>
  (...args: unknown[]): never => {
    const command = typeof args[0] === 'string' ? ` ${args[0]}` : '';
    throw new Error(`${call}${command}: ${advice}`);
  };

/**
 * Commands the tier may run, as quick as a file read: `promtool check rules` and `promtool test
 * rules` take ~60 ms and start no server (test/operating-files.test.ts).
 */
const allowed = new Set(['promtool']);

// The CommonJS object behind `node:child_process`; syncBuiltinESMExports carries the change to its ES module exports too.
const childProcess = createRequire(import.meta.url)('node:child_process') as Record<string, unknown>;
for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
  const original = childProcess[name] as (...args: unknown[]) => unknown;
  const refused = refuse(`child_process.${name}`);
  childProcess[name] = (...args: unknown[]) =>
    typeof args[0] === 'string' && allowed.has(args[0]) ? original(...args) : refused(...args);
}
syncBuiltinESMExports();

// A pool's connections are Clients too.
pg.Client.prototype.connect = refuse('a PostgreSQL connection');
