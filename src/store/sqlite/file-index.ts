/** The index rows of rendered files in SQLite (contract.ts FileIndex). */
import type { Db } from './open-db.js';
import type { FileIndex, StoredFile, Sync } from '../contract.js';
import { sqliteDialect } from '../statements/dialect.js';
import { fileIndexStatements } from '../statements/file-index.js';

const statements = fileIndexStatements(sqliteDialect);

/** The files table of a data dir. */
export function fileIndex(db: Db) {
  const insert = db.prepare<StoredFile>(statements.insert);
  const find = db.prepare<{ id: string; now: number }, StoredFile>(statements.find);
  const expired = db.prepare<{ now: number }, StoredFile>(statements.expired);
  const remove = db.prepare<{ id: string }>(statements.remove);
  const known = db.prepare<{ ids: unknown }, { id: string }>(statements.known);
  return {
    insert(file: StoredFile): void {
      insert.run(file);
    },
    find: (id: string, now: number): StoredFile | null => find.get({ id, now }) ?? null,
    expired: (now: number): StoredFile[] => expired.all({ now }),
    remove(id: string): void {
      remove.run({ id });
    },
    known: (ids: string[]): Set<string> => new Set(known.all({ ids: sqliteDialect.list(ids) }).map((row) => row.id)),
  } satisfies Sync<FileIndex>;
}
