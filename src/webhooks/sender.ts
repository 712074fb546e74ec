/**
 * Sends due webhook deliveries: POST, JSON, with the endpoint's key as Bearer token and signed the
 * Standard Webhooks way with its secret (both read afresh for every attempt, so a rotation applies
 * to the next attempt and a removed endpoint gets nothing more). A 2xx ends a delivery; 410 Gone
 * disables the endpoint and holds its deliveries, this one included, until it is enabled again;
 * anything else is retried on the persisted schedule. Each attempt in flight holds its delivery
 * on a lease the sender renews (every third of it) while it waits for the receiver, so an instance
 * that dies mid-attempt stops counting against the endpoint's cap, and has its attempt sent again,
 * once the lease runs out rather than a whole --webhook-timeout later.
 */
import type { Clock } from '../clock.js';
import type { EventLog } from '../event-log.js';
import type { Resolver } from '../network/resolve-checked.js';
import { pinnedRequest } from '../network/pinned-request.js';
import type { NetworkPolicy } from '../network/policy.js';
import { isStorageFault } from '../store/storage-errors.js';
import type { Deliveries, Delivery, WebhookEndpoints } from '../store/contract.js';
import { webhookConnections } from './connections.js';
import { deliveryFailureReason, failureDetail } from './delivery-failure.js';
import { signWebhook } from './signing.js';
import type { Span } from '@opentelemetry/api';
import { ATTR_HTTP_RESPONSE_STATUS_CODE } from '@opentelemetry/semantic-conventions';
import { inDeliverySpan } from '../tracing/job-spans.js';
import { detached, markError, traceHeaders } from '../tracing/spans.js';

const pollMs = 500;
/** Attempts in flight at once; each runs on its own, so a slow receiver delays no other. */
const maxInFlight = 32;
/** Attempts in flight to one endpoint at once, so a receiver that never answers cannot take every slot. */
const maxInFlightPerEndpoint = 4;
/** How long the outcome of an attempt may wait for a lock held elsewhere before it is given up (and the event sent again later). */
export const outcomeWaitMs = 60_000;

/**
 * The User-Agent of deliveries without --webhook-user-agent: RenderPDF.io's documented one first, as
 * firewalls in front of receivers allow-list it, then pdfrender's own name.
 */
export const defaultWebhookUserAgent = (version: string) => `RenderPdfIoHTTP/1 (compatible; pdfrender/${version})`;

/**
 * What became of one attempt: delivered (2xx), refused (another status), unreachable (no answer in
 * time, or no connection), gone (410: the endpoint is now disabled), held (the endpoint was found
 * disabled), abandoned (the endpoint was removed).
 */
export const attemptOutcomes = ['delivered', 'refused', 'unreachable', 'gone', 'held', 'abandoned'] as const;
export type AttemptOutcome = (typeof attemptOutcomes)[number];

export interface Sender {
  /** Look for due deliveries now (after a job finished). */
  wake(): void;
  /** Stop after the attempts in flight. */
  stop(): Promise<void>;
  /** Stop renewing leases and close the connections now, attempts in flight or not (a stop that was not waited out): a cut-off attempt is sent again when its lease runs out. */
  halt(): void;
}

/** Start sending. */
export function startSender(deps: {
  deliveries: Deliveries;
  webhooks: WebhookEndpoints;
  clock: Clock;
  /** The User-Agent header of every delivery (--webhook-user-agent, else defaultWebhookUserAgent). */
  userAgent: string;
  /** How long a receiver has to answer (--webhook-timeout). */
  timeoutMs: number;
  /** Where deliveries may go (see webhookPolicy); each attempt resolves, checks and dials a pinned address. */
  policy: NetworkPolicy;
  resolver?: Resolver | undefined;
  /** The operator's log, for the sender's own unexpected errors. */
  events: EventLog;
  /** The same two parts with writes that wait up to outcomeWaitMs for a lock: an attempt's outcome is worth waiting to record. */
  outcomes: { deliveries: Deliveries; webhooks: WebhookEndpoints };
  /** How long a claimed attempt stays this sender's without a renewal (--job-lease, as the workers' jobs). */
  leaseMs: number;
  /** Told of each attempt's outcome once recorded (the metrics). */
  attempted?: (outcome: AttemptOutcome, delivery: Delivery) => void;
}): Sender {
  const requestTimeoutMs = deps.timeoutMs;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const inFlight = new Set<Promise<void>>();
  const connections = webhookConnections();
  /** Attempts in flight per endpoint id, passed to the claim. */
  const perEndpoint: Record<string, number> = {};
  /** The deliveries of the attempts in flight, whose leases the renewal extends. */
  const claimed = new Set<number>();
  let renewing = false;
  const renewal = setInterval(
    () => {
      // One renewal at a time: one waiting for a lock is not joined by the next. A failed one is
      // tried again at the next beat; a lease lost meanwhile means the attempt may be sent twice, which
      // receivers already dedupe (webhook-id).
      if (renewing || claimed.size === 0) return;
      renewing = true;
      deps.deliveries
        .renew([...claimed], deps.clock.now() + deps.leaseMs)
        .catch((error: unknown) => {
          if (!isStorageFault(error))
            deps.events({
              level: 'error',
              message: 'webhook delivery lease renewal failed; retrying at the next one',
              error,
            });
        })
        .finally(() => (renewing = false));
    },
    Math.max(500, deps.leaseMs / 3),
  );
  renewal.unref();

  /** `name`, once its record is written. */
  const outcome = async (name: AttemptOutcome, recorded: Promise<void>) => {
    await recorded;
    return name;
  };

  // Each attempt in a span of its own, in its job's trace; the POST carries the span's traceparent.
  const attempt = (delivery: Delivery) => inDeliverySpan(delivery, (span) => send(delivery, span));

  const send = async (delivery: Delivery, span: Span): Promise<AttemptOutcome> => {
    const endpoint = await deps.webhooks.get(delivery.endpointId);
    if (!endpoint) return outcome('abandoned', deps.deliveries.abandon(delivery.id, null, 'the endpoint was removed'));
    // Due again after the endpoint was disabled (an attempt in flight then failed): kept, not sent.
    if (endpoint.disabledAt !== null) return outcome('held', deps.deliveries.hold(delivery.id, deps.clock.now()));
    const timestamp = Math.floor(deps.clock.now() / 1000);
    let status: number;
    let retryAfterMs = 0;
    const signal = AbortSignal.timeout(requestTimeoutMs);
    try {
      const response = await pinnedRequest(new URL(endpoint.url), {
        policy: deps.policy,
        resolver: deps.resolver,
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Authorization: `Bearer ${endpoint.key}`,
          'User-Agent': deps.userAgent,
          'webhook-id': delivery.eventId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signWebhook(endpoint.secret, delivery.eventId, timestamp, delivery.body),
          ...traceHeaders(),
        },
        body: delivery.body,
        // Redirects are not followed: a receiver could otherwise point the signed event anywhere.
        maxRedirects: 0,
        maxBytes: 64 * 1024,
        signal,
        agentFor: connections.agentFor,
      });
      status = response.status;
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
      const retryAfter = response.headers['retry-after'];
      retryAfterMs = parseRetryAfter(typeof retryAfter === 'string' ? retryAfter : null, deps.clock.now());
    } catch (error) {
      // The endpoint's owner reads this back; the address or DNS error behind it is the operator's.
      const reason = signal.aborted ? `no answer within ${requestTimeoutMs / 1000} s` : deliveryFailureReason(error);
      markError(span, signal.aborted ? 'timeout' : 'no answer');
      if (!signal.aborted)
        deps.events({
          level: 'info',
          message: 'webhook delivery attempt failed',
          detail: `${endpoint.url}: ${failureDetail(error)}`,
        });
      return outcome('unreachable', deps.outcomes.deliveries.failed(delivery, null, reason, deps.clock.now()));
    }
    // An answer once had is worth waiting for a lock to record: given up on, it would be sent again.
    if (status >= 200 && status < 300)
      return outcome('delivered', deps.outcomes.deliveries.succeeded(delivery.id, status, deps.clock.now()));
    markError(span, String(status));
    if (status === 410) {
      await deps.outcomes.webhooks.disable(delivery.endpointId, deps.clock.now());
      return outcome(
        'gone',
        deps.outcomes.deliveries.hold(delivery.id, deps.clock.now(), {
          status,
          error: 'the receiver answered 410 Gone; the endpoint is disabled and holds its events until enabled',
        }),
      );
    }
    return outcome(
      'refused',
      deps.outcomes.deliveries.failed(
        delivery,
        status,
        `the receiver answered ${status}`,
        deps.clock.now(),
        retryAfterMs,
      ),
    );
  };

  const start = (delivery: Delivery) => {
    perEndpoint[delivery.endpointId] = (perEndpoint[delivery.endpointId] ?? 0) + 1;
    claimed.add(delivery.id);
    const running: Promise<void> = attempt(delivery)
      .then((outcome) => deps.attempted?.(outcome, delivery))
      .catch((error) => {
        // A storage fault is the health monitor's to log; the delivery is due again when its hold runs out.
        if (!isStorageFault(error))
          deps.events({ level: 'error', message: 'webhook delivery failed unexpectedly', error });
      })
      .finally(() => {
        inFlight.delete(running);
        claimed.delete(delivery.id);
        if (--perEndpoint[delivery.endpointId]! === 0) delete perEndpoint[delivery.endpointId];
        // Room for the next one: claimed now only if the last claim may have left some due for want
        // of room. Otherwise nothing was due then, and what is due since came with a wake() (a new
        // event) or comes due by its retry time (the poll); a claim after every delivery cost a
        // transaction per async job.
        if (heldBack) tick();
      });
    inFlight.add(running);
  };

  // Called from timers, finished attempts and the workers: it must never throw, and always re-arms,
  // or one busy database would stop the sending for good (or fail the job that woke it). One claim
  // at a time (it may wait for a lock); a call meanwhile claims again as soon as it is done.
  let claiming: Promise<void> | undefined;
  let again = false;
  /** The last claim was bounded by the room left (in all, or for an endpoint): more may be due. */
  let heldBack = false;
  const tick = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (stopped) return;
    if (claiming) {
      again = true;
      return;
    }
    const room = maxInFlight - inFlight.size;
    claiming = (
      room > 0
        ? deps.deliveries.claim(deps.clock.now(), room, deps.leaseMs, maxInFlightPerEndpoint, perEndpoint)
        : Promise.resolve([])
    )
      .then(
        (due) => {
          // One of this sender's own attempts comes back if its lease ran out while it waited (renewals
          // that failed): it is in flight already, and renewed again from here.
          due.filter((delivery) => !claimed.has(delivery.id)).forEach(start);
          heldBack =
            inFlight.size >= maxInFlight || Object.values(perEndpoint).some((count) => count >= maxInFlightPerEndpoint);
        },
        (error: unknown) => {
          if (!isStorageFault(error))
            deps.events({ level: 'error', message: 'webhook sender error; retrying shortly', error });
        },
      )
      .finally(() => {
        claiming = undefined;
        if (again && !stopped) {
          again = false;
          tick();
        } else if (!stopped) timer = setTimeout(tick, pollMs);
      });
  };
  tick();

  return {
    // A worker wakes it from inside a job's span: the loop's timers must not keep that context.
    wake: () => detached(tick),
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      // Deliveries a claim in progress takes are sent before the sender stops.
      await claiming;
      await Promise.all(inFlight);
      clearInterval(renewal);
      connections.close();
    },
    halt() {
      stopped = true;
      if (timer) clearTimeout(timer);
      clearInterval(renewal);
      connections.close();
    },
  };
}

/** Retry-After as seconds or an HTTP date, in ms from now; 0 when absent or unreadable. */
function parseRetryAfter(value: string | null, now: number): number {
  if (!value) return 0;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - now) : 0;
}
