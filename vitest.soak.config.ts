import { defineConfig } from 'vitest/config';

// The soak test (`npm run soak`): its file name misses vitest.config.ts's `*.test.ts`, so `npm test` never runs it.
export default defineConfig({
  test: {
    include: ['test/soak/**/*.soak.ts'],
    // 2000 renders at 10-25 a second on a busy 2-core machine, plus the webhooks at the end.
    testTimeout: 20 * 60_000,
    hookTimeout: 60_000,
  },
});
