/**
 * Gauges read when Prometheus scrapes, from what this instance holds now: its pages (busy, idle, and
 * renders waiting for one) and its data dir's health. Nothing is sampled in between.
 */
import { Gauge } from 'prom-client';
import type { Engine } from '../engine/engine.js';
import type { StorageHealth } from '../store/health/storage-health.js';
import type { Metrics } from './metrics.js';

/** Register the engine's and the storage's gauges on `metrics`' registry. */
export function watchInstance(metrics: Metrics, engine: Pick<Engine, 'load'>, storage: StorageHealth): void {
  const registers = [metrics.registry];
  new Gauge({
    name: 'pdfrender_pages',
    help: "The browser's pages on this instance: busy (rendering) or idle (warm, resting).",
    labelNames: ['state'],
    registers,
    collect() {
      const { busy, idle } = engine.load();
      this.set({ state: 'busy' }, busy);
      this.set({ state: 'idle' }, idle);
    },
  });
  new Gauge({
    name: 'pdfrender_page_waiters',
    help: 'Renders on this instance waiting for a page (every page busy).',
    registers,
    collect() {
      this.set(engine.load().waiting);
    },
  });
  new Gauge({
    name: 'pdfrender_storage_healthy',
    help: "1 while the data dir takes writes, 0 while it is full or gone (work that needs storage is refused); the fault's code is a label.",
    labelNames: ['fault'],
    registers,
    collect() {
      const fault = storage.current();
      this.reset();
      this.set({ fault: fault?.code ?? 'none' }, fault ? 0 : 1);
    },
  });
}
