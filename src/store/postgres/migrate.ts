/**
 * Bring a PostgreSQL database's schema up to date. Several instances starting at once each call
 * this: a session advisory lock makes them take turns, so the first migrates and the others find
 * the work done. A database written by a newer pdfrender is refused, as sqlite/open-db.ts refuses a newer
 * SQLite file, rather than being used with a schema this version does not know.
 */
import type pg from 'pg';
import { PdfRenderError } from '../../errors.js';
import { postgresMigrations } from './schema.js';
import { connect, locks, query, row } from './sql.js';

/** How long a start waits for another instance's migration, or a migration for its tables. */
const migrationWaitMs = 10 * 60_000;

/** Migrate the database of `pool` to the newest schema; returns the version it was at. */
export async function migratePostgres(pool: pg.Pool, migrations: string[] = postgresMigrations): Promise<number> {
  const { client, release } = await connect(pool);
  let broken = false;
  try {
    // Instances starting together wait for the one migrating, and a migration for the tables it
    // alters, as long as that takes (the pool's 1 s lock_timeout and 30 s query timeout are for the
    // store's calls, which are retried); reset below before the connection goes back to the pool.
    await query(client, `SET lock_timeout = '${migrationWaitMs}ms'`);
    // Session-level, held across the migrations' own transaction; unlocked below, or by the server when this connection dies.
    await query(client, 'SELECT pg_advisory_lock($1)', [locks.migrate.key], migrationWaitMs);
    try {
      // The version row's table is outside the migrations: it says which of them ran.
      await query(client, 'CREATE TABLE IF NOT EXISTS pdfrender_schema (version INTEGER NOT NULL, checked_at BIGINT)');
      const version = (await row<{ version: number }>(client, 'SELECT version FROM pdfrender_schema'))?.version ?? 0;
      if (version > migrations.length) {
        const name = (await row<{ name: string }>(client, 'SELECT current_database() AS name'))!.name;
        throw new PdfRenderError(
          'STORAGE_UNAVAILABLE',
          `the PostgreSQL database "${name}" was written by a newer pdfrender (schema ${version}); upgrade pdfrender to use it`,
        );
      }
      if (version < migrations.length) {
        await query(client, 'BEGIN');
        try {
          for (let next = version; next < migrations.length; next += 1)
            await query(client, migrations[next]!, [], migrationWaitMs);
          await query(client, 'DELETE FROM pdfrender_schema');
          await query(client, 'INSERT INTO pdfrender_schema (version) VALUES ($1)', [migrations.length]);
          await query(client, 'COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => (broken = true));
          throw error;
        }
      }
      return version;
    } finally {
      await client
        .query(`SELECT pg_advisory_unlock(${locks.migrate.key}); RESET lock_timeout`)
        .catch(() => (broken = true));
    }
  } catch (error) {
    broken = true;
    throw error;
  } finally {
    release(broken);
  }
}
