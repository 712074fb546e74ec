/**
 * Sends due webhook deliveries: POST, JSON, signed the Standard Webhooks way with the endpoint's
 * secret (read afresh for every attempt, so a removed endpoint gets nothing more). A 2xx ends a
 * delivery, 410 Gone disables the endpoint, anything else is retried on the persisted schedule.
 */
import type { Clock } from '../server/deps.js';
import type { Deliveries, Delivery } from '../store/deliveries.js';
import type { WebhookEndpoints } from '../store/webhook-endpoints.js';
import { signWebhook } from './signing.js';

const pollMs = 500;
const requestTimeoutMs = 10_000;
const batch = 8;

export interface Sender {
  /** Look for due deliveries now (after a job finished). */
  wake(): void;
  /** Stop after the attempts in flight. */
  stop(): Promise<void>;
}

/** Start sending. */
export function startSender(deps: { deliveries: Deliveries; webhooks: WebhookEndpoints; clock: Clock; version: string }): Sender {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const attempt = async (delivery: Delivery) => {
    const endpoint = deps.webhooks.get(delivery.endpointId);
    if (!endpoint || endpoint.disabledAt !== null) return deps.deliveries.abandon(delivery.id, null, endpoint ? 'the endpoint was disabled' : 'the endpoint was removed');
    const timestamp = Math.floor(deps.clock.now() / 1000);
    let status: number | null = null;
    try {
      const response = await fetch(endpoint.url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Authorization: `Bearer ${endpoint.secret}`,
          'User-Agent': `pdfrender/${deps.version}`,
          'webhook-id': delivery.eventId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signWebhook(endpoint.secret, delivery.eventId, timestamp, delivery.body),
        },
        body: delivery.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(requestTimeoutMs),
      });
      status = response.status;
      await response.body?.cancel();
    } catch (error) {
      return deps.deliveries.failed(delivery, null, error instanceof Error ? error.message : String(error), deps.clock.now());
    }
    if (status >= 200 && status < 300) return deps.deliveries.succeeded(delivery.id, status, deps.clock.now());
    if (status === 410) {
      deps.webhooks.disable(delivery.endpointId, deps.clock.now());
      return deps.deliveries.abandon(delivery.id, status, 'the receiver answered 410 Gone; the endpoint is disabled');
    }
    deps.deliveries.failed(delivery, status, `the receiver answered ${status}`, deps.clock.now());
  };

  const tick = async () => {
    timer = undefined;
    for (let due = deps.deliveries.claim(deps.clock.now(), batch); due.length > 0 && !stopped; due = deps.deliveries.claim(deps.clock.now(), batch)) {
      await Promise.all(due.map(attempt));
    }
    if (!stopped) timer = setTimeout(() => (running = tick()), pollMs);
  };
  running = tick();

  return {
    wake() {
      if (stopped || !timer) return; // a tick is under way and will look again
      clearTimeout(timer);
      running = tick();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
