// Holds the write lock of a SQLite database, as another process on the same data dir might:
// BEGIN IMMEDIATE, then "held" on stdout; at a line on stdin (or its end), ROLLBACK, "released", exit.
// Usage: node hold-lock.mjs <database file>
import Database from 'better-sqlite3';

const db = new Database(process.argv[2]);
db.pragma('busy_timeout = 10000');
db.exec('BEGIN IMMEDIATE');
process.stdout.write('held\n');
const release = () => {
  db.exec('ROLLBACK');
  db.close();
  process.stdout.write('released\n');
  process.exit(0);
};
process.stdin.once('data', release);
process.stdin.once('end', release);
