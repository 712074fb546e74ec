import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Chromium renders take seconds on a busy 2-core machine; the deadline tests wait on purpose.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Three files at a time on 2 cores: every file runs its own Chromium, but much of a file's time
    // is waiting (a job lease to run out, a deadline, a trick's moment), which a third file fills.
    // Measured on 2 cores: 116 s against 145 s with two (CPU idle 6% against 16%).
    maxWorkers: 3,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
