/**
 * The index rows of rendered files in PostgreSQL (one per file, with its expiry), shared by every
 * instance, so a fileUrl one instance returned is found by any other.
 */
import type pg from 'pg';
import type { FileIndex, StoredFile } from '../contract.js';
import { postgresDialect } from '../statements/dialect.js';
import { fileIndexStatements } from '../statements/file-index.js';
import { named } from './named.js';
import { query, row, rows } from './sql.js';

const statements = fileIndexStatements(postgresDialect);

/** The file index in the database of `pool`. */
export function postgresFileIndex(pool: pg.Pool): FileIndex {
  return {
    async insert(file: StoredFile) {
      await query(pool, ...named(statements.insert, { ...file }));
    },
    find: async (id: string, now: number) =>
      (await row<StoredFile>(pool, ...named(statements.find, { id, now }))) ?? null,
    expired: (now: number) => rows<StoredFile>(pool, ...named(statements.expired, { now })),
    async remove(id: string) {
      await query(pool, ...named(statements.remove, { id }));
    },
    known: async (ids: string[]) =>
      new Set(
        (await rows<{ id: string }>(pool, ...named(statements.known, { ids: postgresDialect.list(ids) }))).map(
          (found) => found.id,
        ),
      ),
  };
}
