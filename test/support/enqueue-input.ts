/** What the store tests queue: a small job from one caller under roomy bounds, changed per case. */
import type { EnqueueInput } from '../../src/store/contract.js';

/** Bounds no test reaches unless it means to. */
export const roomyBounds = {
  maxQueue: 10_000,
  maxQueuePerCaller: 10_000,
  maxQueueBytes: 1024 ** 3,
  maxQueueBytesPerCaller: 1024 ** 3,
};

/** An enqueue with a fresh identifier, as of 1,000,000 ms, with `overrides`. */
export const enqueueInput = (overrides: Partial<EnqueueInput> = {}): EnqueueInput => ({
  caller: 'ip:127.0.0.1',
  identifier: `doc-${Math.random()}`,
  priority: 0,
  request: { htmlContent: '<p>x</p>' },
  baseUrl: 'http://127.0.0.1:3000',
  now: 1_000_000,
  dedupeWindowMs: 60_000,
  bounds: roomyBounds,
  maxAttempts: 3,
  ...overrides,
});
