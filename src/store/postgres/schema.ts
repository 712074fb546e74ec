/**
 * The PostgreSQL schema, as migrations: each entry moves it one version up (never edit one that has
 * shipped, add another). It is SQLite's schema at its version 9 with the same columns and meanings:
 * times are BIGINT ms since the epoch, JSON is TEXT (kept byte for byte: a webhook body is signed
 * as written), so rows read back identical. `seq` columns stand in for SQLite's rowid where the
 * order of insertion breaks ties. Files have no path: their bytes are in `blobs` (or elsewhere).
 */
export const postgresMigrations: string[] = [
  `CREATE TABLE rate_windows (
     key TEXT NOT NULL,
     window_start BIGINT NOT NULL,
     count BIGINT NOT NULL,
     PRIMARY KEY (key, window_start)
   );
   CREATE TABLE files (
     id TEXT PRIMARY KEY,
     pages BIGINT NOT NULL,
     bytes BIGINT NOT NULL,
     created_at BIGINT NOT NULL,
     expires_at BIGINT NOT NULL
   );
   CREATE INDEX files_expiry ON files (expires_at);
   CREATE TABLE blobs (
     id TEXT PRIMARY KEY,
     bytes BYTEA NOT NULL,
     created_at BIGINT NOT NULL
   );
   CREATE INDEX blobs_age ON blobs (created_at);
   CREATE TABLE webhook_endpoints (
     seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
     id TEXT PRIMARY KEY,
     url TEXT NOT NULL,
     key TEXT NOT NULL,
     secret TEXT NOT NULL,
     created_at BIGINT NOT NULL,
     disabled_at BIGINT
   );
   CREATE TABLE jobs (
     seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
     id TEXT PRIMARY KEY,
     caller TEXT NOT NULL,
     identifier TEXT NOT NULL,
     priority BIGINT NOT NULL,
     base_url TEXT NOT NULL,
     status TEXT NOT NULL CHECK (status IN ('queued', 'rendering', 'succeeded', 'failed')),
     attempts BIGINT NOT NULL DEFAULT 0,
     max_attempts BIGINT NOT NULL,
     created_at BIGINT NOT NULL,
     available_at BIGINT NOT NULL,
     claimed_by TEXT,
     claimed_at BIGINT,
     lease_until BIGINT,
     finished_at BIGINT,
     file_id TEXT,
     pages BIGINT,
     bytes BIGINT,
     error TEXT,
     error_code TEXT,
     network TEXT,
     request_bytes BIGINT NOT NULL,
     request TEXT CHECK (request IS NOT NULL OR status IN ('succeeded', 'failed'))
   );
   CREATE INDEX jobs_ready ON jobs (status, priority DESC, available_at, created_at);
   CREATE INDEX jobs_leases ON jobs (status, lease_until);
   CREATE INDEX jobs_held ON jobs (status, caller, request_bytes);
   CREATE TABLE identifiers (
     caller TEXT NOT NULL,
     identifier TEXT NOT NULL,
     seen_at BIGINT NOT NULL,
     PRIMARY KEY (caller, identifier)
   );
   CREATE TABLE webhook_deliveries (
     id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     event_id TEXT NOT NULL,
     job_id TEXT NOT NULL,
     endpoint_id TEXT NOT NULL,
     body TEXT NOT NULL,
     status TEXT NOT NULL CHECK (status IN ('pending', 'held', 'delivered', 'failed')),
     attempts BIGINT NOT NULL DEFAULT 0,
     next_attempt_at BIGINT NOT NULL,
     last_status BIGINT,
     last_error TEXT,
     created_at BIGINT NOT NULL,
     delivered_at BIGINT,
     claimed_until BIGINT
   );
   CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
   CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, status);
   CREATE INDEX webhook_deliveries_job ON webhook_deliveries (job_id);`,
];
