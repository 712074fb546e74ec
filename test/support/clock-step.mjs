/**
 * Loaded with `node --import` into a `pdfrender serve` under test: SIGUSR2 steps this process's wall
 * clock (Date.now) forward by PDFRENDER_TEST_CLOCK_STEP_MS (default 30 s), as an NTP step or an
 * operator's `date -s` would, and says so on stderr. The monotonic clock (performance.now) is left
 * alone, as the kernel leaves CLOCK_MONOTONIC. A clock is the one fault a test may fake: stepping
 * the machine's real clock would step every process on it.
 */
const wallClock = Date.now;
let stepMs = 0;
Date.now = () => wallClock() + stepMs;
process.on('SIGUSR2', () => {
  stepMs += Number(process.env.PDFRENDER_TEST_CLOCK_STEP_MS ?? 30_000);
  process.stderr.write(`test: wall clock stepped to +${stepMs} ms\n`);
});
