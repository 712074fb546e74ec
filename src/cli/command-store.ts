/**
 * The store as the operator's commands open it (`pdfrender webhooks ...`, `pdfrender status`): the
 * data dir's SQLite database, or the PostgreSQL database every instance shares, named by the same
 * flags and environment variables as `pdfrender serve`'s. One helper, so every such command finds
 * the store the same way and refuses the same way to make a data dir where there is none.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { PdfRenderError } from '../errors.js';
import { webhookEvent } from '../server/api/job-event.js';
import { resolveSetting, serveSettings } from '../server/config.js';
import type { Store } from '../store/contract.js';
import { databasePath, openStore } from '../store/open-store.js';
import type { CliIO } from './io.js';

/** Where the store is: a data dir's SQLite database, or a PostgreSQL database. */
export interface Where {
  dataDir?: string;
  database?: string;
}

/** Add --data-dir and --database to `command`, with serve's help text and environment variables. */
export function storeOptions(command: Command): Command {
  return command
    .option('--data-dir <dir>', `${serveSettings.dataDir.schema.description} [env ${serveSettings.dataDir.env}]`)
    .option('--database <url>', `${serveSettings.database.schema.description} [env ${serveSettings.database.env}]`);
}

/**
 * Run `work` on the store `where` names (or the environment, or ./.pdfrender), with the time as the
 * servers count it, and close it. Only with `create` is a data dir made where there is none: run
 * from the wrong folder, a command would otherwise make an empty one there and answer from it.
 */
export async function withCommandStore<T>(
  io: CliIO,
  where: Where,
  work: (store: Store, now: number) => Promise<T>,
  create = false,
): Promise<T> {
  const dataDir = resolve(io.cwd, resolveSetting(serveSettings.dataDir, where.dataDir, io.env));
  const database = resolveSetting(serveSettings.database, where.database, io.env);
  if (!database && !create && !existsSync(databasePath(dataDir)))
    throw new PdfRenderError(
      'USAGE',
      `no pdfrender data dir in ${dataDir === resolve(io.cwd, '.pdfrender') ? io.cwd : dataDir} (no ${databasePath(dataDir)}): run this in the folder \`pdfrender serve\` runs in, or name its data dir with --data-dir <dir> (or ${serveSettings.dataDir.env})`,
    );
  const opened = await openStore({ dataDir, database, eventOf: webhookEvent });
  try {
    // Times compared with what the servers wrote are counted by the servers' clock (the database's, on PostgreSQL).
    return await work(opened.store, opened.now());
  } finally {
    await opened.close();
  }
}
