/**
 * The pdfrender command line as a function of its arguments and IO, returning the exit code.
 * Nothing here exits the process, so tests run it in-process; main.ts is the only caller of exit.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { causeLines, exitCodeFor, isPdfRenderError } from '../errors.js';
import { colorFlag, colorLevel, painter } from './color.js';
import { commandName } from './command-name.js';
import type { CliIO } from './io.js';

/** The package version, read once from package.json. */
export const version: string = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

/**
 * Each command's module, loaded only when it runs or help lists it: a cold `pdfrender render` must
 * not pay for the store and webhook modules (about 20 ms of start-up).
 */
const commands: Record<string, (io: CliIO, setExitCode: (code: number) => void) => Promise<Command>> = {
  render: async (io, setExitCode) => (await import('./render/render-command.js')).renderCommand(io, setExitCode),
  serve: async (io) => (await import('./serve/serve-command.js')).serveCommand(io, version),
  webhooks: async (io) => (await import('./webhooks-command.js')).webhooksCommand(io),
  status: async (io) => (await import('./status-command.js')).statusCommand(io),
  setup: async (io) => (await import('./setup-command.js')).setupCommand(io),
};

/**
 * The program that runs `argv`: pdfrender's own options and the command `argv` names (every command
 * when it names none it knows, so help lists them all), each writing to `io` and throwing where
 * commander would exit. Parsing it runs the command; its actions set the exit code through `setExitCode`.
 */
export async function buildProgram(argv: string[], io: CliIO, setExitCode: (code: number) => void): Promise<Command> {
  const program = new Command('pdfrender')
    .description('Render HTML, with an optional header and footer, into PDF through headless Chromium.')
    .version(version, '-V, --version')
    .option('--debug', 'print stack traces with errors, and their causes')
    .option('--color', 'colour what goes to standard error even when it is not a terminal (so does FORCE_COLOR=1)')
    .option('--no-color', 'no colour (so does NO_COLOR=1)')
    .showHelpAfterError('(run with --help for usage)')
    // A command's help lists the options every command takes (--debug, --color) too.
    .configureHelp({ showGlobalOptions: true })
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .exitOverride();
  // Without a known command (help, a typo) every command is loaded, so help lists them all.
  const named = commandName(argv);
  const wanted = named !== undefined && Object.hasOwn(commands, named) ? [named] : Object.keys(commands);
  for (const command of await Promise.all(wanted.map((name) => commands[name]!(io, setExitCode))))
    program.addCommand(command);
  const configure = (command: Command): void => {
    command
      .exitOverride()
      .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
      .configureHelp({ showGlobalOptions: true });
    command.commands.forEach(configure);
  };
  program.commands.forEach(configure);
  return program;
}

/** Run pdfrender with `argv` (without node and the script) and return the exit code. */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  let exitCode = 0;
  const debug = argv.includes('--debug');
  const program = await buildProgram(argv, io, (code) => (exitCode = code));
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and --version end here too; they succeed. Commander already printed its message.
      return error.exitCode === 0 ? 0 : 2;
    }
    if (io.signal.aborted && error === io.signal.reason) {
      io.stderr.write('pdfrender: interrupted\n');
      return 130;
    }
    printError(io, error, debug, colorLevel(colorFlag(argv), io.env, io.stderrIsTTY));
    return exitCodeFor(error);
  }
}

function printError(io: CliIO, error: unknown, debug: boolean, level: Parameters<typeof painter>[0]): void {
  const chalk = painter(level);
  const message = error instanceof Error ? error.message : String(error);
  for (const line of message.split('\n')) io.stderr.write(`${chalk.red('pdfrender:')} ${line}\n`);
  // The CLI's user is the operator: the detail a server's caller is not told (what a name resolved to) is theirs.
  if (isPdfRenderError(error) && error.detail) io.stderr.write(`${chalk.dim(`(${error.detail})`)}\n`);
  // The stack, then each cause's (a file's errno, the browser's own message), as the server's log has them.
  if (debug && error instanceof Error) io.stderr.write(`${causeLines(error).join('\n')}\n`);
  else if (!isPdfRenderError(error)) io.stderr.write('(run with --debug for the stack trace)\n');
}
