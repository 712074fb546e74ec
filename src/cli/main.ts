/**
 * The process entry of the pdfrender CLI: wires the real process into runCli and exits with its
 * code. The only place that calls process.exit. bin/pdfrender.js calls `main`, from the bundle
 * (bundle-loader.ts) or from dist/cli/.
 */
import { runCli } from './program.js';

export { runCli };

/** Run the CLI on this process's arguments and IO, then exit with its code. */
export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
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

  const code = await runCli(argv, {
    // Read when a document comes from `-` only: Node builds process.stdin, and loads the stream
    // machinery behind it, on first use (~3 ms of a cold render's CPU).
    get stdin() {
      return process.stdin;
    },
    stdout: process.stdout,
    stderr: process.stderr,
    stdoutIsTTY: process.stdout.isTTY === true,
    // Colour follows the terminal; but a terminal that reports zero columns (`stty cols 0`, some CI
    // ptys) gets plain lines: ora divides by the width and would spin forever clearing an
    // "infinitely tall" progress line.
    stderrIsTTY: process.stderr.isTTY === true,
    stderrWidthKnown: (process.stderr.columns ?? 0) > 0,
    env: process.env,
    cwd: process.cwd(),
    platform: process.platform,
    isRoot: process.getuid?.() === 0,
    signal: controller.signal,
  });
  // Let stdout drain (a PDF or JSON summary may still be in flight) before exiting.
  process.stdout.write('', () => process.exit(code));
}
