/**
 * The CLI's early start. For `pdfrender render`, bin/pdfrender.js starts Chromium before the rest of
 * pdfrender loads, so the browser comes up while the modules do (a cold render waited for one, then
 * the other). Only what the engine would launch is started: the browser the CLI would find, as the
 * user it would run it as, with the engine's flags (the egress proxy's among them), the proxy's
 * port bound already. Nothing is decided here: the engine's launch takes this browser only when it
 * asks for exactly that binary, those flags and that user (takeEarlyBrowser), and otherwise it is
 * killed and removed.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { spawnEarlyBrowser } from '../engine/browser/browser-process.js';
import { launchIdentity } from '../engine/browser/browser-user.js';
import { findBrowser } from '../engine/browser/find-browser.js';
import { engineBrowserFlags } from '../engine/browser/engine-flags.js';
import { reserveProxyPort } from '../network/proxy-port.js';
import { commandName } from './command-name.js';
import { unwritableOutput } from './render/writable-output.js';

/** Start the browser for `argv` (the CLI's arguments) if it is a render; never throws (the launch reports any fault). */
export async function startEarly(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  try {
    if (!rendersDocuments(argv) || failsAnyway(argv, process.cwd())) return;
    const found = findBrowser({ chrome: chromeFlag(argv), env });
    if (!found) return;
    spawnEarlyBrowser(
      found.executablePath,
      engineBrowserFlags(await reserveProxyPort(), { oneCaller: true }),
      launchIdentity(),
    );
  } catch {
    // No early browser: the engine launches one as it always did, and says what went wrong.
  }
}

// Help and the version need no browser.
function rendersDocuments(argv: readonly string[]): boolean {
  return commandName(argv) === 'render' && !argv.some((arg) => ['-h', '--help', '-V', '--version'].includes(arg));
}

/**
 * Whether the run is sure to stop before it renders, by what a few file-system calls tell (so a
 * mistyped name costs no browser start, and the CLI says so at once): an HTML file named that is not
 * there (every .html argument names a file to read, an input or a template), or a -o whose folder
 * takes no file. Anything this does not catch is caught as before, after the start.
 */
function failsAnyway(argv: readonly string[], cwd: string): boolean {
  const missingHtml = argv.some(
    (arg) =>
      /\.x?html?$/i.test(arg) &&
      !arg.startsWith('-') &&
      !/^[a-z][a-z\d+.-]*:/i.test(arg) &&
      !existsSync(resolve(cwd, arg)),
  );
  const output = outputFlag(argv);
  return missingHtml || (output !== undefined && output !== '-' && unwritableOutput(output, cwd) !== undefined);
}

// -o <file>, -o<file>, --output <file> or --output=<file>, the last given.
function outputFlag(argv: readonly string[]): string | undefined {
  const index = argv.findLastIndex((arg) => arg === '-o' || arg === '--output' || /^(-o.|--output=)/.test(arg));
  if (index < 0) return undefined;
  const arg = argv[index]!;
  if (arg === '-o' || arg === '--output') return argv[index + 1];
  return arg.startsWith('--output=') ? arg.slice('--output='.length) : arg.slice(2);
}

// --chrome <path> or --chrome=<path>; a misreading only costs the early start (the launch compares).
function chromeFlag(argv: readonly string[]): string | undefined {
  const index = argv.findLastIndex((arg) => arg === '--chrome' || arg.startsWith('--chrome='));
  if (index < 0) return undefined;
  const arg = argv[index]!;
  return arg === '--chrome' ? argv[index + 1] : arg.slice('--chrome='.length);
}
