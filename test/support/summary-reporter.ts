/**
 * Prints one plain closing line, "tests: N passed, N failed, N skipped", after vitest's own
 * report, so that logs (CI's included) have a summary in a format any tool can read.
 */
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const count = { passed: 0, failed: 0, skipped: 0, pending: 0 };
    for (const module of testModules) for (const test of module.children.allTests()) count[test.result().state] += 1;
    // A file that failed to load has no tests but is a failure all the same.
    const brokenFiles = testModules.filter(
      (module) => module.state() === 'failed' && [...module.children.allTests()].length === 0,
    ).length;
    process.stdout.write(
      `\ntests: ${count.passed} passed, ${count.failed + brokenFiles} failed, ${count.skipped} skipped\n`,
    );
  }
}
