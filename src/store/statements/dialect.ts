/**
 * What SQLite and PostgreSQL spell differently, for the statements this folder writes once for
 * both stores. A statement names its parameters `:name`: better-sqlite3 binds them from an object
 * as they are, and the PostgreSQL store numbers them ($1, $2, ...) with postgres/named.ts. Where
 * the two stores do different things, not the same thing spelt two ways (SQLite's enqueue in
 * TypeScript against PostgreSQL's in a database function, the delivery claim), each keeps its own.
 */
export interface Dialect {
  /** The column that orders rows as they were written, the tie-break of every order: SQLite's rowid, PostgreSQL's seq column. */
  writeOrder: 'rowid' | 'seq';
  /** `column` is one of the values of the list parameter `:param` (bound with `list`). */
  among(column: string, param: string, type: 'text' | 'bigint'): string;
  /** A list as a parameter of `among` takes it. */
  list(values: readonly (string | number)[]): unknown;
  /** After a pick of rows (of the table `of` names, in a join) another instance may be taking at the same moment: pass them over rather than wait (PostgreSQL). SQLite has one writer at a time. */
  skipLocked(of?: string): string;
}

export const sqliteDialect: Dialect = {
  writeOrder: 'rowid',
  among: (column, param) => `${column} IN (SELECT value FROM json_each(:${param}))`,
  list: (values) => JSON.stringify(values),
  skipLocked: () => '',
};

export const postgresDialect: Dialect = {
  writeOrder: 'seq',
  among: (column, param, type) => `${column} = ANY(:${param}::${type}[])`,
  list: (values) => values,
  skipLocked: (of) => `FOR UPDATE${of ? ` OF ${of}` : ''} SKIP LOCKED`,
};
