/**
 * The Store's contract: everything durable the server keeps, as one set of asynchronous interfaces
 * with their rules written here once, and two implementations declared against it. SQLite in a data
 * dir (the default: nothing to set up) implements each part synchronously (`satisfies Sync<...>` in
 * sqlite/jobs.ts, sqlite/deliveries.ts, ...; sqlite/sqlite-store.ts answers them as promises, each call whole before its
 * promise is made, so no transaction spans an await); PostgreSQL (postgres/, shared by several
 * instances) implements them as they are. Chosen at start-up by the assembly (open-backend.ts for serve, open-store.ts for the CLI's commands). The
 * contract test suite (test/store-contract*.test.ts) runs the same calls against both.
 */
import type { NetworkReport } from '../engine/network-report.js';
import type { RenderReport } from '../engine/report/render-report.js';
import type { ErrorCode } from '../errors.js';
import type { QueueBounds } from './queue-bounds.js';

/** The same methods, each answering a promise. */
export type Async<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : T[K];
};

/** The same methods, each answering its value itself: what a synchronous backend (SQLite) implements. */
export type Sync<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : T[K];
};

// ---------------------------------------------------------------------------------------------
// The async job queue

export type JobStatus = 'queued' | 'rendering' | 'succeeded' | 'failed';

export interface Job {
  id: string;
  caller: string;
  identifier: string;
  priority: number;
  /** The request as the route parsed it (defaults applied, identifier and priority taken out), parsed again by the worker; null once the job succeeded or failed for good. */
  request: unknown;
  /** Base of the absolute URLs (file, status) reported for this job, taken from the request that queued it. */
  baseUrl: string;
  status: JobStatus;
  attempts: number;
  maxAttempts: number;
  createdAt: number;
  availableAt: number;
  claimedBy: string | null;
  claimedAt: number | null;
  leaseUntil: number | null;
  finishedAt: number | null;
  fileId: string | null;
  pages: number | null;
  bytes: number | null;
  /** The last attempt's error as its caller may see it (a safe message; the cause is in the operator's log). */
  error: string | null;
  errorCode: ErrorCode | null;
  /** URLs the document could not load, once it rendered. */
  network: NetworkReport | null;
  /** The preflight report of the render that finished it: the one that succeeded, or the last attempt's when a failOn rule failed it. */
  report: RenderReport | null;
  /** The W3C traceparent of the request that queued it, stored as given (tracing links the job's spans to that request's); null without one. */
  traceContext: string | null;
}

/** A job whose lease ran out, and where requeueExpired sent it: back to the queue, or failed after its last attempt. */
export interface ExpiredJob {
  id: string;
  status: JobStatus;
  /** The attempt that ran out, of how many. */
  attempts: number;
  maxAttempts: number;
  /** Its stored traceparent (Job.traceContext). */
  traceContext: string | null;
}

/** What a finished render leaves on its job. */
export interface JobResult {
  fileId: string;
  pages: number;
  bytes: number;
  network?: NetworkReport;
  report?: RenderReport;
}

export interface EnqueueInput {
  caller: string;
  identifier: string;
  priority: number;
  request: unknown;
  baseUrl: string;
  now: number;
  /** An identifier seen from the same caller within this window is refused (402), unless with the same request (enqueue-rules.ts). */
  dedupeWindowMs: number;
  /** Jobs and request bytes, per caller and in total, beyond which new ones are refused (503). */
  bounds: QueueBounds;
  maxAttempts: number;
  /** The W3C traceparent to keep with the job (Job.traceContext). */
  traceContext?: string | null;
}

/** The queue as an operator sees it: what waits, by priority, and what renders. */
export interface QueueOverview {
  /** Queued jobs by priority, highest first; only priorities that have some. `ready`: of them, how many are due (availableAt <= now). */
  queued: { priority: number; count: number; oldestCreatedAt: number; ready: number }[];
  /** Jobs rendering now (claimed by a worker of any instance). */
  rendering: number;
}

/** Jobs that failed for good with one error code (null: failed before codes were kept), as an operator sees them. */
export interface JobFailures {
  code: ErrorCode | null;
  count: number;
  /** When the most recent of them failed. */
  lastAt: number;
  /** The most recent one's error (its safe message). */
  lastError: string | null;
}

/** A job finished for good, as its webhook event tells of it. */
export interface FinishedJob {
  id: string;
  identifier: string;
  /** Base of the absolute URLs reported for it. */
  baseUrl: string;
  /** 'succeeded' with its file, pages and bytes; 'failed' with its error: the store writes them together. */
  status: 'succeeded' | 'failed';
  fileId: string | null;
  pages: number | null;
  bytes: number | null;
  error: string | null;
  errorCode: ErrorCode | null;
  /** Its preflight report (the render's, or the failed render's when a failOn rule failed it); null when there is none. */
  report: RenderReport | null;
}

/**
 * What a finished job's webhook event says: the API's answer shape, so the server's to decide and
 * pass in. The store calls it in the transaction that finishes the job, so the event is written with
 * the job's final status (a crash loses neither), and again for a redelivery of a job with none.
 */
export type JobEventBuilder = (job: FinishedJob) => unknown;

/** Why an attempt failed, as its caller may see it. */
export interface JobError {
  code: ErrorCode;
  /** Safe for the caller: a PdfRenderError's message or a generic one (see callerError). */
  message: string;
  /** The preflight report of a render a failOn rule failed (reportOf), kept on the job. */
  report?: RenderReport;
}

/**
 * The durable queue. Two servers (or two requests at once) never both take the same job or both
 * accept the same identifier. A claimed job carries a lease; only its holder may extend, complete
 * or fail it (every write names its holder), and a lease that runs out sends the job back to the
 * queue. A job's final status and its webhook deliveries are written in one transaction, which
 * drops the job's request: nothing reads it after.
 */
export interface JobQueue {
  /**
   * Queue a job, or refuse it: DUPLICATE_IDENTIFIER for the same identifier with another request
   * within the window (the same request again answers the job it queued, as it is now), QUEUE_FULL
   * past a bound. On PostgreSQL, OUTCOME_UNKNOWN when the answer was lost and the database cannot
   * say whether the job was queued (postgres/lost-answer.ts).
   */
  enqueue(input: EnqueueInput): Promise<Job>;
  /** Take the next job (highest priority, then oldest) with a lease until now + leaseMs; null when none is ready. */
  claim(worker: string, now: number, leaseMs: number): Promise<Job | null>;
  /** Extend a lease; false when `worker` no longer holds the job. */
  heartbeat(id: string, worker: string, leaseUntil: number): Promise<boolean>;
  /**
   * Mark a job done and queue its PDF_RENDERED event in the same transaction; false when `worker`
   * no longer holds it (its lease ran out and another took it). True again for a completion tried
   * again after its commit's answer was lost, when the job stands succeeded with this very file.
   */
  complete(id: string, worker: string, now: number, result: JobResult): Promise<boolean>;
  /**
   * Record a failed attempt: back to the queue at `retryAt`, or failed after the last attempt or when
   * `retryAt` is null (a failure of the document itself), queuing RENDER_PDF_FAILED; null when not held.
   */
  fail(id: string, worker: string, now: number, error: JobError, retryAt: number | null): Promise<JobStatus | null>;
  /** Put a job `worker` holds back in the queue at `availableAt` without counting its attempt (a storage fault, a stop); false when not held. */
  release(id: string, worker: string, availableAt: number): Promise<boolean>;
  /**
   * Send jobs whose lease ran out back to the queue, or to failed after their last attempt (queuing
   * RENDER_PDF_FAILED), except the ids in `inHand` (jobs the caller's own workers are still on);
   * answers each job sent and where to.
   */
  requeueExpired(now: number, inHand?: string[]): Promise<ExpiredJob[]>;
  /** One job by id. */
  get(id: string): Promise<Job | null>;
  /**
   * Keep the tables bounded: forget identifiers seen before `identifiersBefore`, and finished jobs
   * (with their settled deliveries, and those held since) before `jobsBefore`. Returns how many
   * held deliveries expired unsent, for the operator's log.
   */
  sweep(identifiersBefore: number, jobsBefore: number): Promise<{ heldExpired: number }>;
  /** The queue by priority and the jobs rendering, as of `now`: read at every metrics scrape by every instance, so two index reads. */
  overview(now: number): Promise<QueueOverview>;
  /** Jobs that failed for good at or after `since`, by error code, the most recent failure first. */
  failures(since: number): Promise<JobFailures[]>;
}

// ---------------------------------------------------------------------------------------------
// Webhook deliveries

export interface Delivery {
  id: number;
  eventId: string;
  jobId: string;
  endpointId: string;
  body: string;
  attempts: number;
  /** When the delivery was made: when its job's PDF was ready, or the job failed. */
  createdAt: number;
  /** Its job's traceparent (Job.traceContext); null without one, or once the job row is gone. */
  traceContext: string | null;
}

/** An endpoint and the state of its deliveries (those the store still keeps), as an operator sees them. Never its key or secret. */
export interface EndpointDeliveries {
  endpointId: string;
  url: string;
  owner: string;
  disabledAt: number | null;
  pending: number;
  held: number;
  failed: number;
  delivered: number;
  /** When its oldest pending delivery was made; null with none pending. */
  oldestPendingCreatedAt: number | null;
  lastDeliveredAt: number | null;
  /** The error and HTTP status (null: no answer) of its newest delivery with a failed attempt; null with none. */
  lastError: string | null;
  lastStatus: number | null;
}

/** Deliveries waiting, across every endpoint. */
export interface DeliveriesWaiting {
  pending: number;
  held: number;
  /** When the oldest pending delivery was made; null with none pending. */
  oldestPendingCreatedAt: number | null;
}

/** Held: its endpoint is disabled, and it waits for the endpoint to be enabled again. */
export type DeliveryStatus = 'pending' | 'held' | 'delivered' | 'failed';

export interface DeliveryLogEntry {
  id: number;
  eventId: string;
  jobId: string;
  endpointId: string;
  /** The endpoint's URL, null once it was removed. */
  url: string | null;
  status: DeliveryStatus;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: number;
  nextAttemptAt: number | null;
  deliveredAt: number | null;
}

/**
 * Webhook deliveries, one row per event and endpoint, with a persisted retry schedule: a delivery
 * survives a restart, and two senders never send the same attempt at once (an attempt is claimed
 * by moving its next_attempt_at and claimed_until forward, on a lease the sender renews). A
 * delivery to a disabled endpoint is 'held': kept, never sent, until the endpoint is enabled again.
 */
export interface Deliveries {
  /**
   * Queue `event` (as JSON, under a new webhook-id) for every endpoint of `owner` (the job's,
   * owners.ts; default no key's) and every global one, due now, held for a disabled one; returns how
   * many deliveries.
   */
  queueEvent(jobId: string, event: unknown, now: number, owner?: string): Promise<number>;
  /**
   * Take up to `limit` due deliveries for sending, at most `perEndpoint` per endpoint counting the
   * attempts in flight (the caller's `inFlight` on SQLite; every sender's, from the table, on
   * PostgreSQL), kept from other senders for a lease of `leaseMs` that the sender renews while the
   * attempt lasts; if the sender dies mid-attempt, the delivery is due again when its lease runs out.
   */
  claim(
    now: number,
    limit: number,
    leaseMs: number,
    perEndpoint?: number,
    inFlight?: Record<string, number>,
  ): Promise<Delivery[]>;
  /** Extend the leases of the attempts `ids` still in flight to `until`; returns how many were. */
  renew(ids: number[], until: number): Promise<number>;
  /** The receiver answered 2xx. */
  succeeded(id: number, status: number, now: number): Promise<void>;
  /**
   * The attempt failed: schedule the next, or mark the delivery failed after the last. The delay is
   * the schedule's, give or take 10% so that retries to one receiver spread out, or the receiver's
   * own Retry-After when it asks for longer (up to 10 h).
   */
  failed(delivery: Delivery, status: number | null, error: string, now: number, retryAfterMs?: number): Promise<void>;
  /** The newest deliveries first (only failed ones with `failedOnly`), for `pdfrender webhooks deliveries`. */
  log(limit: number, failedOnly?: boolean): Promise<DeliveryLogEntry[]>;
  /**
   * Keep a delivery until its endpoint is enabled again: after the receiver answered 410 Gone
   * (`answered`, counted as an attempt), or when the endpoint was found disabled before sending.
   */
  hold(id: number, now: number, answered?: { status: number; error: string }): Promise<void>;
  /** Stop for good (the endpoint is gone). */
  abandon(id: number, status: number | null, error: string): Promise<void>;
  /**
   * The deliveries waiting, pending (due or retrying) and held, and when the oldest pending one was
   * made: read at every metrics scrape by every instance, so only the waiting rows are read (by the
   * status index), never the delivered history `overview` counts.
   */
  waiting(): Promise<DeliveriesWaiting>;
  /** Every endpoint, oldest first (also those with no deliveries), with the state of its deliveries as of `now`. */
  overview(now: number): Promise<EndpointDeliveries[]>;
}

// ---------------------------------------------------------------------------------------------
// Webhook endpoints

export interface WebhookEndpoint {
  id: string;
  url: string;
  /** Sent as `Authorization: Bearer <key>` with every delivery; never the signing secret. */
  key: string;
  /** Keys the Standard Webhooks signature; never sent. */
  secret: string;
  createdAt: number;
  /** When a receiver answered 410 Gone, after which its deliveries are held until it is enabled; null while active. */
  disabledAt: number | null;
  /** Whose it is (owners.ts): it receives the events of that owner's jobs, or of every job when `*`. */
  owner: string;
}

/** An endpoint as listings show it: with how many deliveries it holds (while disabled). */
export type ListedEndpoint = WebhookEndpoint & { held: number };

/** An endpoint enabled, whether it had been disabled, and how many of its held deliveries were released (due now). */
export interface Enabled {
  endpoint: WebhookEndpoint;
  wasDisabled: boolean;
  released: number;
}

/** Which of an endpoint's credentials to replace. */
export interface Rotation {
  key: boolean;
  secret: boolean;
}

/**
 * Webhook endpoints, read from the store at every use, so `pdfrender webhooks ...` takes effect at
 * once in a running server. Each change of state and its deliveries' is one transaction.
 */
export interface WebhookEndpoints {
  /** Add an endpoint of `owner` (owners.ts; default no key's) with a new key and a new secret. */
  add(url: string, now: number, owner?: string): Promise<WebhookEndpoint>;
  /**
   * What `webhooks add` and POST /api/webhooks do: a URL that a disabled endpoint has is that
   * endpoint coming back, so it is enabled again (the oldest such, keeping its id, key and secret,
   * which its receiver already checks) and its held deliveries are sent; any other URL gets a new
   * endpoint. Only `owner`'s endpoints count: another owner's endpoint with the same URL is theirs.
   */
  addOrEnable(
    url: string,
    now: number,
    owner?: string,
  ): Promise<({ created: true } & WebhookEndpoint) | ({ created: false } & Enabled)>;
  // The methods below that take `viewer` see only the endpoints that owner owns (another's is not
  // there: null, absent from the list); without one (the operator, or auth off) they see every endpoint.
  /** Enable an endpoint and send what it holds (also when it was active: nothing changes then but stragglers); null when there is none. */
  enable(id: string, now: number, viewer?: string): Promise<Enabled | null>;
  /** Replace an endpoint's key, secret or both; the next delivery attempt uses them. Null when there is no such endpoint. */
  rotate(id: string, which: Rotation, viewer?: string): Promise<WebhookEndpoint | null>;
  /** Every endpoint, oldest first, with how many deliveries each holds. */
  list(viewer?: string): Promise<ListedEndpoint[]>;
  /** Whether an endpoint would receive the events of `owner`'s jobs (its own or a global one; without `owner`, any endpoint), disabled ones included (their events are held). */
  any(owner?: string): Promise<boolean>;
  /**
   * Give an endpoint to another owner (the operator's `webhooks assign`); what it held or had yet to
   * send of jobs not the new owner's is marked failed, never sent to the new owner. Null when there is none.
   */
  assign(id: string, owner: string): Promise<WebhookEndpoint | null>;
  /** One endpoint, read afresh (a removed one is null). */
  get(id: string): Promise<WebhookEndpoint | null>;
  /** Hold everything for an endpoint until it is enabled again (its receiver answered 410 Gone). */
  disable(id: string, now: number): Promise<void>;
  /**
   * Remove an endpoint; what it held or still had to send is marked failed ("the endpoint was
   * removed", `unsent` of them: `webhooks redeliver <jobId>` sends a job's event to the current
   * endpoints). Null when there was none with that id.
   */
  remove(id: string, now: number, viewer?: string): Promise<{ unsent: number } | null>;
}

// ---------------------------------------------------------------------------------------------
// Redelivery (`pdfrender webhooks redeliver <jobId>`)

/** What a redelivery did, or why it could not. */
export type Redelivery =
  | { outcome: 'no-such-job' }
  | { outcome: 'unfinished'; status: JobStatus }
  | {
      outcome: 'done';
      /** Deliveries due now, new ones included. */
      queued: number;
      /** Of those, new: endpoints that had none of this event. */
      created: number;
      /** Being sent right now, left alone (resetting them would send them twice). */
      inFlight: number;
      /** Endpoints that are disabled and hold this event until enabled. */
      heldFor: string[];
      /** Active endpoints, none of which may have been free to take it. */
      active: number;
    };

export interface Redeliveries {
  /**
   * Send a finished job's event again, now, to every active endpoint: its deliveries there start
   * over, and an active endpoint with none (added since) gets one under the event's own webhook-id.
   * One transaction, so the counts it reports are what it did.
   */
  redeliver(jobId: string, now: number): Promise<Redelivery>;
}

// ---------------------------------------------------------------------------------------------
// Rate-limit windows

export interface WindowCount {
  /** Requests counted in this window so far, this one included. */
  count: number;
  /** When the window ends (ms since the epoch). */
  resetAt: number;
}

/** Fixed one-minute windows per caller, shared by every server on the store, surviving restarts. */
export interface RateWindows {
  /** Count one request by `key` at time `now`. */
  hit(key: string, now: number): Promise<WindowCount>;
  /** The requests `key` has made in the window of `now`, without counting one more. */
  peek(key: string, now: number): Promise<WindowCount>;
  /** Forget windows that ended before `now`. */
  prune(now: number): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Rendered files

/** A rendered PDF kept for download until `expiresAt`. */
export interface StoredFile {
  id: string;
  pages: number;
  bytes: number;
  createdAt: number;
  expiresAt: number;
  /** The owner of the render that made it (owners.ts): with --private-files, only that key downloads it. */
  owner: string;
}

/**
 * Rendered PDFs: an index row each, and the bytes where the backend keeps them (the data dir's
 * files/ folder, a PostgreSQL table, an S3 bucket). A save writes the bytes before the row and
 * removes them again if the row cannot be written; the sweep removes expired files and bytes no
 * row names (left by a crash between the two steps).
 */
export interface FileStore {
  /** Store `owner`'s PDF until `now + retentionMs`: the bytes first, then the row (or neither). Storage faults throw with a storage code. */
  save(pdf: Uint8Array, pages: number, now: number, retentionMs: number, owner: string): Promise<StoredFile>;
  /** Remove a file saved for a job that then could not be finished (best effort: the sweep gets the rest). */
  discard(file: StoredFile): Promise<void>;
  /** A file that has not expired yet, or null. */
  find(id: string, now: number): Promise<StoredFile | null>;
  /** The bytes of a file `find` answered; null when they are gone (swept meanwhile). */
  read(file: StoredFile): Promise<Uint8Array | null>;
  /** Delete expired files and their rows, and left-over bytes no row names; returns how many expired files went. */
  sweep(now: number): Promise<number>;
}

/** The index rows of rendered files, in the store's database. */
export interface FileIndex {
  insert(file: StoredFile): Promise<void>;
  /** A file that has not expired at `now`, or null. */
  find(id: string, now: number): Promise<StoredFile | null>;
  /** Files expired at `now`. */
  expired(now: number): Promise<StoredFile[]>;
  remove(id: string): Promise<void>;
  /** Which of `ids` have a row. */
  known(ids: string[]): Promise<Set<string>>;
}

/** Where the bytes of rendered files live: the data dir's files/ folder, a PostgreSQL table or an S3 bucket. */
export interface Blobs {
  /** Write whole or not at all (a write that fails leaves nothing; nothing reads the bytes before their row is written). Storage faults throw with a storage code. */
  put(id: string, bytes: Uint8Array): Promise<void>;
  /** The bytes, or null when there are none. */
  get(id: string): Promise<Uint8Array | null>;
  /** Remove (nothing there is no error). */
  delete(id: string): Promise<void>;
  /**
   * Remove what no index row names, and what a write left half done, when written before `before`
   * (younger ones may be a save between its two steps). `known` says which ids have a row.
   */
  removeOrphans(before: number, known: (ids: string[]) => Promise<Set<string>>): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// The whole

export interface Store {
  queue: JobQueue;
  deliveries: Deliveries;
  webhooks: WebhookEndpoints;
  redeliveries: Redeliveries;
  rateWindows: RateWindows;
  /** The rows of rendered files; their bytes are in a Blobs, and files/file-store.ts makes the two one FileStore. */
  fileIndex: FileIndex;
  /** Resolves once a write could be made now (a lock taken and let go, a round trip): /readyz's database check. */
  ping(): Promise<void>;
  /** Close connections (after the work using them stopped). */
  close(): Promise<void>;
}
