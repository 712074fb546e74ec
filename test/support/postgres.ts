/**
 * A throw-away PostgreSQL cluster for one test file: initdb as the postgres user, pg_ctl on a free
 * loopback port, fsync off, stopped and removed after; when it cannot start, the error says why and
 * the test fails (never skips). The one copy lives in bench/lib/postgres.mjs, which the bench's
 * scale-out section starts its cluster with too.
 */
export { endPool, startCluster, type Cluster, type ClusterOptions } from '../../bench/lib/postgres.mjs';
