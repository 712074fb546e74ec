/** The bits of markdown every section of the report is made of: a table and its units. */

/** A markdown table of `head` and `rows` (arrays of cells). */
export const table = (head, rows) =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join(
    '\n',
  );
/** Milliseconds as seconds, "1.23 s"; "-" for none. */
export const seconds = (ms) => (ms === undefined ? '-' : `${(ms / 1000).toFixed(2)} s`);
/** Milliseconds, "123 ms"; "-" for none. */
export const millis = (ms) => (ms === undefined ? '-' : `${ms.toFixed(0)} ms`);
/** KiB as MB, "123 MB"; "-" for none. */
export const mb = (kb) => (kb ? `${(kb / 1024).toFixed(0)} MB` : '-');
/** A file size in bytes, in kB or MB. */
export const size = (bytes) => (bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${(bytes / 1000).toFixed(0)} kB`);
