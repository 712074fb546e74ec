/**
 * Running the CLI in this process through runCli, on engines shared across runs: a test of what a
 * flag does pays for a render, not for a Node start and a cold Chromium. Each run still gets the
 * engine its flags ask for (one per distinct set of engine options, made once per file); only a
 * real child process shows exit, signals, terminals and the bundled bin (support/cli.ts).
 */
import { PassThrough, Readable } from 'node:stream';
import { createEngine, type Engine, type EngineOptions } from '../../src/engine/engine.js';
import type { CliIO } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/program.js';
import type { CliRun } from './cli.js';

export interface InProcessCli {
  /** Run `pdfrender ...args` in-process, like support/cli.ts pdfrender (no terminal, no colour). */
  run(args: string[], options?: { cwd?: string; input?: string; env?: NodeJS.ProcessEnv }): Promise<CliRun>;
  /** The engine options of every engine made so far, in order: what the flags mapped to. */
  made: EngineOptions[];
  /** Close every engine; call it in afterAll. */
  close(): Promise<void>;
}

/** A CLI runner whose renders share one warm engine per set of engine options. */
export function inProcessCli(): InProcessCli {
  const engines = new Map<string, { engine: Engine; warn: (message: string) => void }>();
  const made: EngineOptions[] = [];
  // The run's own engine, kept warm: its close (the end of every run) leaves it running.
  const shared = (options: EngineOptions): Engine => {
    const key = JSON.stringify({ ...options, warn: undefined });
    let entry = engines.get(key);
    if (!entry) {
      made.push(options);
      const created: { engine?: Engine; warn: (message: string) => void } = { warn: () => {} };
      created.engine = createEngine({ ...options, warn: (message) => created.warn(message) });
      entry = created as { engine: Engine; warn: (message: string) => void };
      engines.set(key, entry);
    }
    // Warnings go to the run that is rendering now.
    entry.warn = options.warn ?? (() => {});
    return { ...entry.engine, close: async () => {} };
  };
  return {
    made,
    async run(args, options = {}) {
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      const out: Buffer[] = [];
      let err = '';
      stdout.on('data', (chunk: Buffer) => out.push(chunk));
      stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      const io: CliIO = {
        stdin: Readable.from([options.input ?? '']),
        stdout,
        stderr,
        stdoutIsTTY: false,
        stderrIsTTY: false,
        env: { ...process.env, NO_COLOR: '1', ...options.env },
        cwd: options.cwd ?? process.cwd(),
        platform: process.platform,
        isRoot: process.getuid?.() === 0,
        signal: new AbortController().signal,
        createEngine: shared,
      };
      const code = await runCli(args, io);
      return { code, stdout: Buffer.concat(out), stderr: err };
    },
    async close() {
      await Promise.all([...engines.values()].map(({ engine }) => engine.close({ kill: true })));
      engines.clear();
    },
  };
}
