/**
 * The unit tier's setup file (vitest.unit.config.ts): there, starting a process and connecting to
 * PostgreSQL throw. Chromium, the CLI, `pdfrender serve`, initdb and pg_ctl, and s3rver are all
 * child processes, so a file listed in the tier that needs any of them fails at once, naming what
 * it started, instead of making the fast tier slow. `npm test` does not load this file.
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

// The CommonJS object behind `node:child_process`; syncBuiltinESMExports carries the change to its ES module exports too.
const childProcess = createRequire(import.meta.url)('node:child_process') as Record<string, unknown>;
for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'])
  childProcess[name] = refuse(`child_process.${name}`);
syncBuiltinESMExports();

// A pool's connections are Clients too.
pg.Client.prototype.connect = refuse('a PostgreSQL connection');
