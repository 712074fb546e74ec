/**
 * Everything `pdfrender serve` runs besides the HTTP listener: the store (SQLite or PostgreSQL), the
 * async workers and the webhook sender. Built here once for the CLI and the tests alike.
 */
import { systemClock, type Clock } from '../clock.js';
import type { ServeConfig } from './config.js';
import type { Engine } from '../engine/engine.js';
import type { EventLog } from '../event-log.js';
import { valueWithin } from '../race.js';
import { startWorkers } from '../queue/worker.js';
import { openBackend } from '../store/open-backend.js';
import type { Resolver } from '../network/resolve-checked.js';
import { defaultWebhookUserAgent, outcomeWaitMs, startSender } from '../webhooks/sender.js';
import { webhookPolicy } from '../webhooks/webhook-policy.js';
import type { AccessLogEntry, AppDeps } from './deps.js';
import { webhookEvent } from './api/job-event.js';
import { reportJobChanges } from './job-changes.js';
import { watchInstance } from '../metrics/engine-gauges.js';
import { watchStore } from '../metrics/store-gauges.js';
import { meteredEngine } from '../metrics/metered-engine.js';
import { createMetrics, type Metrics } from '../metrics/metrics.js';

/**
 * A stopping server's close waits for the webhook sender, then the database, for what is left of
 * its grace and at least this long: a process on its way out must not wait out a slow receiver
 * (--webhook-timeout, up to 10 m), a locked database or PostgreSQL's 30 s query timeout. An attempt
 * cut off is sent again, with the same webhook-id, once its claim runs out.
 */
const closeWithinMs = 2_000;

export interface Runtime {
  deps: AppDeps;
  /**
   * A stopping server: the workers take no new job from now on; resolves when the jobs in hand are
   * done. Once `giveUp` aborts (the grace ran out), renders still going end and their jobs go back
   * to the queue, the attempt not counted. `graceEnds` (a Date.now() time) bounds close's waits.
   */
  drain(giveUp: AbortSignal, graceEnds: number): Promise<void>;
  /** Stop the workers (after the jobs in hand, or as drain said) and the sender, then close the database; after drain, each wait is bounded. */
  close(): Promise<void>;
}

/** Open the data dir and start the background work. The engine belongs to the caller. */
export async function startRuntime(options: {
  config: ServeConfig;
  engine: Engine;
  /** Default: the database's clock on PostgreSQL, else this machine's. */
  clock?: Clock;
  /** The environment, for the AWS_* variables of --files s3:// (only the CLI's edge reads process.env). */
  env?: NodeJS.ProcessEnv;
  log: (entry: AccessLogEntry) => void;
  /** The operator's log of errors and their causes. */
  events: EventLog;
  version: string;
  /** Resolves webhook hosts; default the system resolver (tests give a DNS answer). */
  resolver?: Resolver | undefined;
  /** What GET /metrics reports; default a registry of its own (the engine's observer counts into it too when given one). */
  metrics?: Metrics;
}): Promise<Runtime> {
  const { config } = options;
  const metrics = options.metrics ?? createMetrics(options.version, config.metrics);
  // The routes and the workers render through it, so every render is counted by endpoint.
  const engine = meteredEngine(options.engine, metrics);
  const backend = await openBackend({ config, events: options.events, env: options.env ?? {}, eventOf: webhookEvent });
  const { store, files, storage } = backend;
  const { queue, webhooks } = store;
  // The database's clock when instances share one (leases, dedupe and rate windows compare times
  // written by other machines); a clock the caller gives (a test's) wins.
  const clock = options.clock ?? backend.clock ?? systemClock;
  const sender = startSender({
    deliveries: store.deliveries,
    webhooks,
    clock,
    userAgent: config.webhookUserAgent ?? defaultWebhookUserAgent(options.version),
    timeoutMs: config.webhookTimeout,
    leaseMs: config.jobLease,
    policy: webhookPolicy(config.allowPrivateWebhooks),
    resolver: options.resolver,
    events: options.events,
    outcomes: backend.waiting(outcomeWaitMs),
    attempted: (outcome, delivery) => {
      metrics.webhookAttempts.inc({ outcome });
      if (outcome === 'delivered') metrics.webhookLag.observe(Math.max(0, clock.now() - delivery.createdAt) / 1000);
    },
  });
  watchInstance(metrics, engine, storage);
  watchStore(metrics, { queue, deliveries: store.deliveries, clock });
  const jobChanged = reportJobChanges(options.events, metrics);
  // A live worker extends its lease every third of it, however long the render takes; a lease
  // only runs out when its server died, and then the job is rendered again after at most this long.
  const leaseMs = config.jobLease;
  const workers = startWorkers(
    {
      engine,
      queue,
      files,
      clock,
      retentionMs: config.retention,
      leaseMs,
      onEvent: () => sender.wake(),
      events: options.events,
      jobChanged,
      storage,
    },
    // Twice as many loops as pages: while one loop stores a finished job and claims the next, another
    // already waits for the page, so no page idles between jobs (async ran at 0.85 x sync's
    // throughput with one loop per page). Sync requests still go first: the engine serves them
    // ahead of waiting background renders.
    engine.concurrency * 2,
  );
  const deps: AppDeps = {
    config,
    engine,
    store,
    rateWindows: store.rateWindows,
    files,
    webhooks,
    queue,
    wakeWorkers: () => workers.wake(),
    wakeSender: () => sender.wake(),
    clock,
    waiting: backend.waiting,
    storage,
    log: options.log,
    events: options.events,
    jobChanged,
    metrics,
    lifecycle: { draining: false, inFlight: 0 },
    listening: {},
  };
  /** Set by drain: a process on its way out. A library caller's close waits for everything. */
  let graceEnds: number | undefined;
  const bounded = (work: Promise<void>) =>
    graceEnds === undefined ? work : valueWithin(work, Math.max(closeWithinMs, graceEnds - Date.now()), undefined);
  return {
    deps,
    drain(giveUp, ends) {
      graceEnds = ends;
      return workers.stop(giveUp);
    },
    async close() {
      await workers.stop();
      await bounded(sender.stop());
      // Cut off by the bound: no lease renewal may run into the database closing below.
      sender.halt();
      await bounded(backend.close());
    },
  };
}
