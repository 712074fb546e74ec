/** The engine's observer that counts the browser's life and the renderers stopped for memory. */
import type { EngineObserver } from '../engine/engine.js';
import type { Metrics } from './metrics.js';

/** Count what the engine tells into `metrics`. */
export function browserObserver(metrics: Metrics): EngineObserver {
  return {
    browser: (event) => metrics.browserEvents.inc({ event }),
    memoryStop: () => metrics.memoryStops.inc(),
  };
}
