/**
 * The statements both stores share (src/store/statements/): PostgreSQL's numbering of their named
 * parameters, and the SQLite schema change that let the file index's insert be one statement for
 * both (migration 11 drops the unused path column, keeping every row).
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { named } from '../src/store/postgres/named.js';
import { fileIndex } from '../src/store/sqlite/file-index.js';
import { migrations, openDb } from '../src/store/sqlite/open-db.js';
import { webhookEndpoints } from '../src/store/sqlite/webhook-endpoints.js';
import { removeTempDirs, tempDir } from './support/files.js';

afterAll(removeTempDirs);

describe('named parameters numbered for PostgreSQL', () => {
  it('numbers each name once, in order of first use, with its values in that order', () => {
    expect(named('UPDATE t SET a = :a, b = :b WHERE a < :a AND c = :c', { c: 3, b: 2, a: 1, unused: 9 })).toEqual([
      'UPDATE t SET a = $1, b = $2 WHERE a < $1 AND c = $3',
      [1, 2, 3],
    ]);
  });

  it('leaves casts, quoted strings and quoted names as they are', () => {
    const [text, values] = named(
      `SELECT :id::text[] AS "x:y", 'at 10:30 :not' FROM t WHERE CAST(:now AS BIGINT) > 0 AND s = 'it''s :no'`,
      { id: ['a'], now: 5 },
    );
    expect(text).toBe(
      `SELECT $1::text[] AS "x:y", 'at 10:30 :not' FROM t WHERE CAST($2 AS BIGINT) > 0 AND s = 'it''s :no'`,
    );
    expect(values).toEqual([['a'], 5]);
  });

  it('refuses a statement whose parameter was not given, naming it', () => {
    expect(() => named('DELETE FROM t WHERE id = :id AND at < :before', { id: 'x' })).toThrow(
      "the statement's parameter :before was not given",
    );
  });
});

describe('SQLite migrations 11 and 12', () => {
  it("keeps every file row of a schema 10 data dir, found by the shared statements, and makes what exists no key's", async () => {
    const path = join(await tempDir(), 'pdfrender.db');
    const old = new Database(path);
    for (const migration of migrations.slice(0, 10)) old.exec(migration);
    old.pragma('user_version = 10');
    old
      .prepare('INSERT INTO files (id, path, pages, bytes, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run('kept', 'kept.pdf', 3, 1234, 1_000, 9_000);
    old
      .prepare('INSERT INTO webhook_endpoints (id, url, secret, created_at, key) VALUES (?, ?, ?, ?, ?)')
      .run('wh_old', 'https://example.com/hook', 'whsec_x', 1, 'whk_x');
    old.close();

    const db = openDb(path);
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
      const index = fileIndex(db);
      expect(index.find('kept', 2_000)).toEqual({
        id: 'kept',
        pages: 3,
        bytes: 1234,
        createdAt: 1_000,
        expiresAt: 9_000,
        // Made before owners existed: no key's (migration 12).
        owner: '',
      });
      index.insert({ id: 'new', pages: 1, bytes: 10, createdAt: 2_000, expiresAt: 3_000, owner: '' });
      expect(index.expired(5_000).map((file) => file.id)).toEqual(['new']);
      expect(index.known(['kept', 'new', 'gone'])).toEqual(new Set(['kept', 'new']));
      expect(webhookEndpoints(db).get('wh_old')).toMatchObject({ url: 'https://example.com/hook', owner: '' });
    } finally {
      db.close();
    }
  });
});
