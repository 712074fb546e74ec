/** The statements of the index of rendered files (contract.ts FileIndex), one per operation for both stores. */
import type { Dialect } from './dialect.js';

/** The columns of a StoredFile, named as its fields. */
const columns = 'id, pages, bytes, created_at AS "createdAt", expires_at AS "expiresAt", owner';

export const fileIndexStatements = (d: Dialect) => ({
  insert: `INSERT INTO files (id, pages, bytes, created_at, expires_at, owner)
     VALUES (:id, :pages, :bytes, :createdAt, :expiresAt, :owner)`,
  find: `SELECT ${columns} FROM files WHERE id = :id AND expires_at > :now`,
  expired: `SELECT ${columns} FROM files WHERE expires_at <= :now ORDER BY expires_at, id`,
  remove: 'DELETE FROM files WHERE id = :id',
  known: `SELECT id FROM files WHERE ${d.among('id', 'ids', 'text')}`,
});
