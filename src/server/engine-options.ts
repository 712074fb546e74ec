/**
 * The engine options `serve`'s settings give. Both `pdfrender serve` (cli/serve/run-server.ts) and
 * the tests' servers build their engine from this, so a new engine setting reaches both.
 */
import type { EngineOptions } from '../engine/engine.js';
import { engineNetworkOptions } from '../network/policy-settings.js';
import type { ServeConfig } from './config.js';

/** What the engine takes from `config`; documents from callers are untrusted: public addresses only, no files, unless the flags relax it. */
export const serveEngineOptions = (config: ServeConfig) =>
  ({
    concurrency: config.concurrency,
    maxPagesPerCaller: config.maxPagesPerCaller,
    pageWaitMs: config.pageWait,
    timeoutMs: config.timeout,
    maxPages: config.maxPages,
    maxRenderMemory: config.maxRenderMemory,
    browserRecycleAfter: config.browserRecycleAfter,
    browserHangTimeoutMs: config.browserHangTimeout,
    ...engineNetworkOptions(config, 'public'),
  }) satisfies Partial<EngineOptions>;
