/** An in-process engine for tests of what befalls the shared browser: a short hang timeout, and the operator's warnings kept. */
import { createEngine, type Engine, type EngineOptions } from '../../src/engine/engine.js';
import { executablePath } from './browser.js';

/**
 * Two pages and the hang timeout of test/hung-browser.test.ts (2 s), with `options` on top; the
 * warnings (a browser killed as hung) are collected for the test to read.
 */
export function watchedEngine(options: Partial<EngineOptions> = {}): { engine: Engine; warnings: string[] } {
  const warnings: string[] = [];
  const engine = createEngine({
    executablePath,
    concurrency: 2,
    browserHangTimeoutMs: 2_000,
    warn: (message) => warnings.push(message),
    ...options,
  });
  return { engine, warnings };
}
