/** What the HTTP app is built from: passed in, so tests can drive it with their own clock. */
import type { Clock } from '../clock.js';
import type { ServeConfig } from './config.js';
import type { Engine } from '../engine/engine.js';
import type { EventLog } from '../event-log.js';
import type { StorageHealth } from '../store/health/storage-health.js';
import type { FileStore, JobQueue, RateWindows, Store, WebhookEndpoints } from '../store/contract.js';
import type { Listening } from './public-url.js';
import type { Metrics } from '../metrics/metrics.js';
import type { JobChanges } from '../queue/job-change.js';

/** One access-log entry. */
export interface AccessLogEntry {
  /** X-Request-Id: the caller's, or one made for it (edge/request-id.ts). */
  requestId: string | undefined;
  method: string;
  path: string;
  status: number;
  ms: number;
  bytes: number;
  /** The request's trace and span, when tracing is on (tracing/spans.ts). */
  traceId?: string;
  spanId?: string;
}

export interface AppDeps {
  config: ServeConfig;
  engine: Engine;
  /** Everything durable (SQLite or PostgreSQL); the members below are its parts. Each write waits out a lock held elsewhere without blocking (retrying-store.ts). */
  store: Store;
  rateWindows: RateWindows;
  files: FileStore;
  webhooks: WebhookEndpoints;
  queue: JobQueue;
  /** Tell the async workers a job was queued. */
  wakeWorkers: () => void;
  /** Tell the webhook sender deliveries are due now (held events released), rather than at its next poll. */
  wakeSender: () => void;
  clock: Clock;
  /** The store with writes that wait up to `waitMs` for a lock (the others wait up to --busy-timeout, then 503 DATABASE_BUSY). */
  waiting(waitMs: number): Store;
  /** The data dir's health: work that needs storage is refused while it is full or gone. */
  storage: StorageHealth;
  /** Receives one entry per request. */
  log: (entry: AccessLogEntry) => void;
  /** The operator's log of errors and their causes (callers only get a code and a safe message). */
  events: EventLog;
  /** Tell of a job's change of state: a line in the log and a count in the metrics (job-change.ts). */
  jobChanged: JobChanges;
  /** What GET /metrics reports; counted whether or not it is served. */
  metrics: Metrics;
  /** `draining` is set when the server is stopping (new work gets 503); `inFlight` counts API requests being handled. */
  lifecycle: { draining: boolean; inFlight: number };
  /** The address the server listens on, set by listen(): the base of absolute URLs and the Hosts a loopback server answers to. */
  listening: Listening;
}
