/**
 * The PostgreSQL schema, as migrations: each entry moves it one version up (never edit one that has
 * shipped, add another). It is SQLite's schema at its version 9 with the same columns and meanings:
 * times are BIGINT ms since the epoch, JSON is TEXT (kept byte for byte: a webhook body is signed
 * as written), so rows read back identical. `seq` columns stand in for SQLite's rowid where the
 * order of insertion breaks ties. Files have no path: their bytes are in `blobs` (or elsewhere).
 */
import { deliveryClaimLockKey, enqueueLockKey } from './sql.js';

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
  // Enqueue in one round trip: the enqueue lock is held only while the server runs this, never
  // across a round trip to an instance (held over 3 of them, an instance busy rendering kept every
  // other instance's enqueues waiting: 96% of the time under load). The rules are those of
  // enqueue-rules.ts; the caller words the refusal from the values returned.
  `CREATE FUNCTION pdfrender_enqueue(
     p_id TEXT, p_caller TEXT, p_identifier TEXT, p_priority INTEGER, p_request TEXT, p_request_bytes BIGINT, p_base_url TEXT,
     p_max_attempts INTEGER, p_now BIGINT, p_window BIGINT, p_max_queue BIGINT, p_max_queue_bytes BIGINT, p_max_per_caller BIGINT, p_max_bytes_per_caller BIGINT)
   RETURNS TABLE (seen_at BIGINT, jobs BIGINT, bytes BIGINT, my_jobs BIGINT, my_bytes BIGINT, queued BOOLEAN)
   LANGUAGE plpgsql AS $$
   DECLARE v_seen BIGINT; v_jobs BIGINT; v_bytes BIGINT; v_my_jobs BIGINT; v_my_bytes BIGINT;
   BEGIN
     PERFORM pg_advisory_xact_lock(${enqueueLockKey});
     -- After the lock, each its own statement: each sees every enqueue committed before it.
     SELECT i.seen_at INTO v_seen FROM identifiers i WHERE i.caller = p_caller AND i.identifier = p_identifier;
     SELECT count(*), coalesce(sum(j.request_bytes), 0), count(*) FILTER (WHERE j.caller = p_caller), coalesce(sum(j.request_bytes) FILTER (WHERE j.caller = p_caller), 0)
       INTO v_jobs, v_bytes, v_my_jobs, v_my_bytes FROM jobs j WHERE j.status IN ('queued', 'rendering');
     IF (v_seen IS NOT NULL AND v_seen > p_now - p_window)
        OR v_jobs >= p_max_queue OR (v_jobs > 0 AND v_bytes + p_request_bytes > p_max_queue_bytes)
        OR v_my_jobs >= p_max_per_caller OR (v_my_jobs > 0 AND v_my_bytes + p_request_bytes > p_max_bytes_per_caller) THEN
       RETURN QUERY SELECT v_seen, v_jobs, v_bytes, v_my_jobs, v_my_bytes, false;
       RETURN;
     END IF;
     INSERT INTO identifiers (caller, identifier, seen_at) VALUES (p_caller, p_identifier, p_now)
       ON CONFLICT (caller, identifier) DO UPDATE SET seen_at = excluded.seen_at;
     INSERT INTO jobs (id, caller, identifier, priority, request, request_bytes, base_url, status, max_attempts, created_at, available_at)
       VALUES (p_id, p_caller, p_identifier, p_priority, p_request, p_request_bytes, p_base_url, 'queued', p_max_attempts, p_now, p_now);
     RETURN QUERY SELECT v_seen, v_jobs, v_bytes, v_my_jobs, v_my_bytes, true;
   END $$;`,
  // Claim due deliveries in one round trip, for the same reason: the claim lock (per-endpoint caps
  // counted exactly across instances) was held over three round trips, 85% of the time with 3 instances.
  `CREATE FUNCTION pdfrender_claim_deliveries(p_now BIGINT, p_limit BIGINT, p_per_endpoint BIGINT, p_until BIGINT)
   RETURNS TABLE (id BIGINT, event_id TEXT, job_id TEXT, endpoint_id TEXT, body TEXT, attempts BIGINT, due_at BIGINT)
   LANGUAGE plpgsql AS $$
   BEGIN
     PERFORM pg_advisory_xact_lock(${deliveryClaimLockKey});
     RETURN QUERY
       WITH busy AS (
         SELECT b.endpoint_id, count(*) AS n FROM webhook_deliveries b WHERE b.status = 'pending' AND b.claimed_until > p_now GROUP BY b.endpoint_id
       ), due AS (
         SELECT d.id, d.endpoint_id, d.next_attempt_at, row_number() OVER (PARTITION BY d.endpoint_id ORDER BY d.next_attempt_at, d.id) AS rank
         FROM webhook_deliveries d WHERE d.status = 'pending' AND d.next_attempt_at <= p_now
       ), picked AS (
         SELECT due.id, due.next_attempt_at AS due_at FROM due LEFT JOIN busy ON busy.endpoint_id = due.endpoint_id
         WHERE due.rank <= p_per_endpoint - coalesce(busy.n, 0)
         ORDER BY due.next_attempt_at, due.id LIMIT p_limit
       ), claimed AS (
         UPDATE webhook_deliveries w SET next_attempt_at = p_until, claimed_until = p_until FROM picked
         WHERE w.id = picked.id AND w.status = 'pending' AND w.next_attempt_at <= p_now
         RETURNING w.id, w.event_id, w.job_id, w.endpoint_id, w.body, w.attempts, picked.due_at
       )
       SELECT * FROM claimed ORDER BY claimed.due_at, claimed.id;
   END $$;`,
  // Enqueue, version 2: judged by the rules of enqueue-rules.ts (judgeEnqueue), in their order, and
  // answering the verdict with the figures it read, which one TypeScript function words for both
  // stores (enqueueRefusal). What an identifier queued is kept, so the same request again within the
  // window answers that job (verdict 'retry', replay_of): the retry of a caller whose answer was
  // lost. And a deadline (p_deadline, ms by the database's clock, checked once the lock is held): an
  // enqueue that reaches the database after its instance stopped waiting for the answer queues
  // nothing ('late'), so once it has passed, a job that is not there never will be (lost-answer.ts).
  // The first version stays for instances of the version before during a rolling upgrade, as a call
  // of this one that keeps no request digest (its identifiers are refused again as before).
  `ALTER TABLE identifiers ADD COLUMN request_digest TEXT, ADD COLUMN job_id TEXT;
   CREATE FUNCTION pdfrender_enqueue_v2(
     p_id TEXT, p_caller TEXT, p_identifier TEXT, p_priority INTEGER, p_request TEXT, p_request_bytes BIGINT, p_base_url TEXT,
     p_max_attempts INTEGER, p_now BIGINT, p_window BIGINT, p_max_queue BIGINT, p_max_queue_bytes BIGINT, p_max_per_caller BIGINT, p_max_bytes_per_caller BIGINT,
     p_request_digest TEXT, p_deadline BIGINT)
   RETURNS TABLE (verdict TEXT, seen_at BIGINT, jobs BIGINT, bytes BIGINT, caller_jobs BIGINT, caller_bytes BIGINT, replay_of TEXT)
   LANGUAGE plpgsql AS $$
   DECLARE v_seen BIGINT; v_digest TEXT; v_job TEXT; v_jobs BIGINT; v_bytes BIGINT; v_my_jobs BIGINT; v_my_bytes BIGINT; v_verdict TEXT;
   BEGIN
     PERFORM pg_advisory_xact_lock(${enqueueLockKey});
     IF p_deadline IS NOT NULL AND extract(epoch from clock_timestamp()) * 1000 > p_deadline THEN
       RETURN QUERY SELECT 'late'::TEXT, NULL::BIGINT, 0::BIGINT, 0::BIGINT, 0::BIGINT, 0::BIGINT, NULL::TEXT;
       RETURN;
     END IF;
     -- After the lock, each its own statement: each sees every enqueue committed before it.
     SELECT i.seen_at, i.request_digest, i.job_id INTO v_seen, v_digest, v_job FROM identifiers i WHERE i.caller = p_caller AND i.identifier = p_identifier;
     SELECT count(*), coalesce(sum(j.request_bytes), 0), count(*) FILTER (WHERE j.caller = p_caller), coalesce(sum(j.request_bytes) FILTER (WHERE j.caller = p_caller), 0)
       INTO v_jobs, v_bytes, v_my_jobs, v_my_bytes FROM jobs j WHERE j.status IN ('queued', 'rendering');
     v_verdict := CASE
       WHEN v_seen IS NOT NULL AND v_seen > p_now - p_window THEN
         CASE WHEN v_digest = p_request_digest AND EXISTS (SELECT 1 FROM jobs j WHERE j.id = v_job) THEN 'retry' ELSE 'duplicate' END
       WHEN v_jobs >= p_max_queue THEN 'total-jobs'
       WHEN v_jobs > 0 AND v_bytes + p_request_bytes > p_max_queue_bytes THEN 'total-bytes'
       WHEN v_my_jobs >= p_max_per_caller THEN 'caller-jobs'
       WHEN v_my_jobs > 0 AND v_my_bytes + p_request_bytes > p_max_bytes_per_caller THEN 'caller-bytes'
       ELSE 'queued' END;
     IF v_verdict = 'queued' THEN
       INSERT INTO identifiers (caller, identifier, seen_at, request_digest, job_id) VALUES (p_caller, p_identifier, p_now, p_request_digest, p_id)
         ON CONFLICT (caller, identifier) DO UPDATE SET seen_at = excluded.seen_at, request_digest = excluded.request_digest, job_id = excluded.job_id;
       INSERT INTO jobs (id, caller, identifier, priority, request, request_bytes, base_url, status, max_attempts, created_at, available_at)
         VALUES (p_id, p_caller, p_identifier, p_priority, p_request, p_request_bytes, p_base_url, 'queued', p_max_attempts, p_now, p_now);
     END IF;
     RETURN QUERY SELECT v_verdict, v_seen, v_jobs, v_bytes, v_my_jobs, v_my_bytes, CASE WHEN v_verdict = 'retry' THEN v_job END;
   END $$;
   CREATE OR REPLACE FUNCTION pdfrender_enqueue(
     p_id TEXT, p_caller TEXT, p_identifier TEXT, p_priority INTEGER, p_request TEXT, p_request_bytes BIGINT, p_base_url TEXT,
     p_max_attempts INTEGER, p_now BIGINT, p_window BIGINT, p_max_queue BIGINT, p_max_queue_bytes BIGINT, p_max_per_caller BIGINT, p_max_bytes_per_caller BIGINT)
   RETURNS TABLE (seen_at BIGINT, jobs BIGINT, bytes BIGINT, my_jobs BIGINT, my_bytes BIGINT, queued BOOLEAN)
   LANGUAGE sql AS $$
     SELECT e.seen_at, e.jobs, e.bytes, e.caller_jobs, e.caller_bytes, e.verdict = 'queued' FROM pdfrender_enqueue_v2(p_id, p_caller, p_identifier, p_priority,
       p_request, p_request_bytes, p_base_url, p_max_attempts, p_now, p_window, p_max_queue, p_max_queue_bytes, p_max_per_caller, p_max_bytes_per_caller, NULL, NULL) e
   $$;`,
  // Owners (owners.ts), as SQLite's migration 12: an endpoint receives only its owner's jobs' events
  // (or every job's, '*'); with --private-files a file is downloaded only with its owner's key. What
  // exists is no key's (''). An instance of the version before, during a rolling upgrade, adds
  // endpoints as no key's and queues events for every endpoint, as it did.
  `ALTER TABLE webhook_endpoints ADD COLUMN owner TEXT NOT NULL DEFAULT '';
   ALTER TABLE files ADD COLUMN owner TEXT NOT NULL DEFAULT '';`,
  // The preflight report, as SQLite's migration 13. An instance of the version before, during a
  // rolling upgrade, finishes jobs without one (null: their status and event have no report).
  `ALTER TABLE jobs ADD COLUMN report TEXT;`,
  // A job's W3C traceparent, as SQLite's migration 14, written by enqueue version 3: version 2 and
  // then the column, in the same call (one transaction: no instance can claim the job between).
  // Deliveries are claimed by version 2 of the claim, which also returns when each delivery was made
  // and its job's trace context: read in the UPDATE that claims them, as a statement reading them
  // after the function began would not see a delivery committed in between. The versions before stay
  // for instances of the version before during a rolling upgrade (their jobs have no trace context).
  // And failed jobs by when, for the failures an operator lists (and the sweep's drop of finished
  // jobs); and the queued ones alone, for the queue's overview every instance reads at each metrics
  // scrape: jobs_ready holds the finished jobs too, and beside 100,000 finished ones the planner
  // scanned the table (52 ms at 100,000 queued); from this index, once vacuumed, 18 ms.
  `ALTER TABLE jobs ADD COLUMN trace_context TEXT;
   CREATE INDEX jobs_finished ON jobs (status, finished_at);
   CREATE INDEX jobs_queued ON jobs (priority DESC, available_at, created_at) WHERE status = 'queued';
   CREATE FUNCTION pdfrender_enqueue_v3(
     p_id TEXT, p_caller TEXT, p_identifier TEXT, p_priority INTEGER, p_request TEXT, p_request_bytes BIGINT, p_base_url TEXT,
     p_max_attempts INTEGER, p_now BIGINT, p_window BIGINT, p_max_queue BIGINT, p_max_queue_bytes BIGINT, p_max_per_caller BIGINT, p_max_bytes_per_caller BIGINT,
     p_request_digest TEXT, p_deadline BIGINT, p_trace_context TEXT)
   RETURNS TABLE (verdict TEXT, seen_at BIGINT, jobs BIGINT, bytes BIGINT, caller_jobs BIGINT, caller_bytes BIGINT, replay_of TEXT)
   LANGUAGE plpgsql AS $$
   BEGIN
     RETURN QUERY SELECT * FROM pdfrender_enqueue_v2(p_id, p_caller, p_identifier, p_priority, p_request, p_request_bytes, p_base_url,
       p_max_attempts, p_now, p_window, p_max_queue, p_max_queue_bytes, p_max_per_caller, p_max_bytes_per_caller, p_request_digest, p_deadline);
     -- Only the job this call queued has this id (none when refused).
     IF p_trace_context IS NOT NULL THEN
       UPDATE jobs SET trace_context = p_trace_context WHERE jobs.id = p_id;
     END IF;
   END $$;
   CREATE FUNCTION pdfrender_claim_deliveries_v2(p_now BIGINT, p_limit BIGINT, p_per_endpoint BIGINT, p_until BIGINT)
   RETURNS TABLE (id BIGINT, event_id TEXT, job_id TEXT, endpoint_id TEXT, body TEXT, attempts BIGINT, due_at BIGINT, created_at BIGINT,
                  trace_context TEXT)
   LANGUAGE plpgsql AS $$
   BEGIN
     PERFORM pg_advisory_xact_lock(${deliveryClaimLockKey});
     RETURN QUERY
       WITH busy AS (
         SELECT b.endpoint_id, count(*) AS n FROM webhook_deliveries b WHERE b.status = 'pending' AND b.claimed_until > p_now GROUP BY b.endpoint_id
       ), due AS (
         SELECT d.id, d.endpoint_id, d.next_attempt_at, row_number() OVER (PARTITION BY d.endpoint_id ORDER BY d.next_attempt_at, d.id) AS rank
         FROM webhook_deliveries d WHERE d.status = 'pending' AND d.next_attempt_at <= p_now
       ), picked AS (
         SELECT due.id, due.next_attempt_at AS due_at FROM due LEFT JOIN busy ON busy.endpoint_id = due.endpoint_id
         WHERE due.rank <= p_per_endpoint - coalesce(busy.n, 0)
         ORDER BY due.next_attempt_at, due.id LIMIT p_limit
       ), claimed AS (
         UPDATE webhook_deliveries w SET next_attempt_at = p_until, claimed_until = p_until FROM picked
         WHERE w.id = picked.id AND w.status = 'pending' AND w.next_attempt_at <= p_now
         RETURNING w.id, w.event_id, w.job_id, w.endpoint_id, w.body, w.attempts, picked.due_at, w.created_at,
           (SELECT j.trace_context FROM jobs j WHERE j.id = w.job_id)
       )
       SELECT * FROM claimed ORDER BY claimed.due_at, claimed.id;
   END $$;`,
];
