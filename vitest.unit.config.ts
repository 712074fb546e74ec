import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * The fast tier, `npm run test:unit`: the test files that need no Chromium, no CLI or server
 * process, no PostgreSQL cluster, no S3 server and no built dist/ (SQLite in a temp dir is in: it
 * runs in-process and quickly). 532 tests in about 7 s on a quiet 2-core machine, 7 to 10 s on a
 * busy one, to check a change in seconds; `npm test` (vitest.config.ts) still runs every file, these
 * included, and is what CI runs.
 *
 * The files are listed by name, not picked by a naming convention or by their imports: the list is
 * the one place that says a file is in this tier, a convention would mean renaming files others are
 * editing, and imports do not tell (test/support/cli.ts starts a process as it loads; a file may
 * spawn one itself). A new file that needs none of the above goes on the list. A mistake is loud:
 * the setup file (test/support/unit-tier-guard.ts) makes starting any process (Chromium, the CLI,
 * initdb and pg_ctl, s3rver are all child processes) or connecting to PostgreSQL throw, naming what
 * was started, and the plugin below refuses to load dist/.
 */
const unitTestFiles = [
  'test/browser-watchdog.test.ts',
  'test/capped-messages.test.ts',
  'test/cii-invoice.test.ts',
  'test/cli-conventions.test.ts',
  'test/deliveries-store.test.ts',
  'test/docs-commands.test.ts',
  'test/docs-links.test.ts',
  'test/egress-proxy.test.ts',
  'test/factur-x-embedding.test.ts',
  'test/find-browser.test.ts',
  'test/human-duration.test.ts',
  'test/jobs-store.test.ts',
  'test/launch-flags.test.ts',
  'test/length.test.ts',
  'test/linear-scans.test.ts',
  'test/network-address.test.ts',
  'test/operating-files.test.ts',
  'test/atomic-write.test.ts',
  'test/plan-documents.test.ts',
  'test/race-until.test.ts',
  'test/read-body.test.ts',
  'test/render-flags.test.ts',
  'test/request-factur-x.test.ts',
  'test/request.test.ts',
  'test/retrying-store.test.ts',
  'test/s3-location.test.ts',
  'test/render-memory-setting.test.ts',
  'test/render-memory-unseen.test.ts',
  'test/settings-reference.test.ts',
  'test/setup-fonts.test.ts',
  'test/store-statements.test.ts',
  'test/template-stamps-policy.test.ts',
  'test/tracing-log-fields.test.ts',
  'test/unneeded-commands.test.ts',
  'test/upload-rate.test.ts',
  'test/wait-expression.test.ts',
  'test/xmp.test.ts',
];

const dist = resolve(import.meta.dirname, 'dist');

export default defineConfig({
  plugins: [
    {
      name: 'unit-tier-no-dist',
      load(id) {
        if (id.startsWith(`${dist}/`))
          throw new Error(
            `${id}: the unit tier (npm run test:unit) does not build; a test of dist/ belongs to npm test only`,
          );
      },
    },
  ],
  test: {
    include: unitTestFiles,
    setupFiles: ['test/support/unit-tier-guard.ts'],
    // One worker per core: linear-scans.test.ts spends seconds of CPU timing its scans, the rest fill the other core.
    maxWorkers: 2,
    // A worker keeps the modules it loaded from one file to the next: 1 to 3 s less wall time, measured
    // here. These files pass either way (each closes its servers and removes its temp folders); a file
    // that mocks modules or leaves fake timers on would need isolation back.
    isolate: false,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
