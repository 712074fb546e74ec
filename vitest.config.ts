import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Chromium renders take seconds on a busy 2-core machine; the deadline tests wait on purpose.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Each browser-backed file runs its own Chromium; two at a time fit 2 cores.
    maxWorkers: 2,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
