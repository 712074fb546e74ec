/**
 * Running the built CLI (bin/pdfrender.js) as a child process: plainly, as a shell script or CI
 * job would, or inside a pseudo-terminal through util-linux `script`, as a person at a terminal would.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

/** The built CLI; `npm run build` first, since it runs dist/. */
export const bin = resolve(import.meta.dirname, '../../bin/pdfrender.js');

export interface CliRun {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

export interface CliRunOptions {
  cwd?: string;
  input?: string;
  env?: NodeJS.ProcessEnv;
  /** A command (and its arguments) to run the CLI through, such as support/no-userns.py. */
  wrapper?: string[];
}

/** Run the CLI like a shell would: not a terminal, so output is plain lines, without colour. */
export function pdfrender(args: string[], options: CliRunOptions = {}): Promise<CliRun> {
  return new Promise((resolvePromise, reject) => {
    const [command, ...prefix] = [...(options.wrapper ?? []), process.execPath];
    const child = spawn(command!, [...prefix, bin, ...args], {
      cwd: options.cwd ?? process.cwd(),
      // An env value of undefined leaves that variable out.
      env: { ...process.env, NO_COLOR: '1', ...options.env },
    });
    const stdout: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout: Buffer.concat(stdout), stderr }));
    child.stdin.end(options.input ?? '');
  });
}

export interface ServeProcess {
  child: ChildProcess;
  /** Where it listens, from its start-up line. */
  url: string;
  /** Resolves with the exit code when the process has exited. */
  exited: Promise<number | null>;
  /** Everything it printed on stderr so far. */
  stderr(): string;
}

/** Start `pdfrender serve --port 0 ...args` as a user would, and wait for its "listening on" line. */
export async function startServe(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', ...args], {
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolvePromise) => child.on('close', resolvePromise));
  const url = await new Promise<string>((resolvePromise, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match) resolvePromise(match[1]!);
    });
    child.on('close', () => reject(new Error(`serve exited before listening:\n${stderr}`)));
  });
  return { child, url, exited, stderr: () => stderr };
}

/** Whether util-linux `script` is installed (Debian: bsdutils), which ptyRun needs. */
export const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

export interface PtyRun {
  /** The CLI's exit code, or null when it was killed at the deadline. */
  code: number | null;
  timedOut: boolean;
  /** Everything the terminal showed (stdout and stderr share the pty), up to 1 MB. */
  output: string;
}

/**
 * Run the CLI with a pseudo-terminal of `columns` width as stdin, stdout and stderr, killing it
 * after `timeoutMs`. A hung CLI can print without end (a spinner redrawing), so output is capped.
 */
export function ptyRun(args: string[], options: { cwd: string; columns: number; timeoutMs: number }): Promise<PtyRun> {
  const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;
  const command = `stty cols ${options.columns} rows 24; exec ${[process.execPath, bin, ...args].map(quote).join(' ')}`;
  return new Promise((resolvePromise, reject) => {
    // -e: exit with the command's code; -q: no "Script started" banner; /dev/null: no typescript file.
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TERM: 'xterm' },
    });
    let output = '';
    const keep = (chunk: Buffer) => {
      if (output.length < 1_000_000) output += chunk.toString();
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    // SIGTERM to script: it passes the hang-up on to the CLI, then kills it if it does not leave.
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
    }, options.timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code: timedOut ? null : code, timedOut, output });
    });
  });
}
