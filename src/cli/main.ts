/**
 * The process entry of the pdfrender CLI: wires the real process into runCli and exits with its
 * code. The only place that calls process.exit.
 */
import { runCli } from './program.js';

const controller = new AbortController();
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // First signal: stop rendering and close the browser cleanly. Second: leave now.
    if (interrupted) process.exit(130);
    interrupted = true;
    controller.abort(new Error(`interrupted by ${signal}`));
  });
}

const code = await runCli(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  stdoutIsTTY: process.stdout.isTTY === true,
  // A terminal that reports zero columns (`stty cols 0`, some CI ptys) gets plain lines: ora
  // divides by the width and would spin forever clearing an "infinitely tall" progress line.
  stderrIsTTY: process.stderr.isTTY === true && (process.stderr.columns ?? 0) > 0,
  env: process.env,
  cwd: process.cwd(),
  signal: controller.signal,
});
// Let stdout drain (a PDF or JSON summary may still be in flight) before exiting.
process.stdout.write('', () => process.exit(code));
