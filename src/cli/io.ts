import type { Engine, EngineOptions } from '../engine/engine.js';

/** The process around a CLI run, passed in so tests can run commands in-process. */
export interface CliIO {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Whether stderr's terminal says how wide it is, which a spinner needs (colour does not); default true. */
  stderrWidthKnown?: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** process.platform: `setup` installs with apt-get on Linux only. */
  platform: NodeJS.Platform;
  /** Whether pdfrender runs as root: `setup` may install packages and make the browser's user. */
  isRoot: boolean;
  /** Aborted on SIGINT/SIGTERM: renders stop, the browser closes. */
  signal: AbortSignal;
  /** Makes the engine a render runs on; default createEngine. Tests pass one that reuses a warm browser across runs. */
  createEngine?: (options: EngineOptions) => Engine;
}
