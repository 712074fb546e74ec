/**
 * `pdfrender setup`: make sure a browser is there. Fast and idempotent when one is found; on
 * Debian/Ubuntu as root it installs the distribution's chromium (and its headless shell where
 * there is one); elsewhere it tries Chrome for
 * Testing's headless shell (which needs the internet) and otherwise says what to do. As root it also
 * makes the system user that Chromium runs as (browser-user.ts). Then fonts: every major script
 * and colour emoji, installed where it can, named where it cannot (setup-fonts.ts).
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Command } from 'commander';
import { browserUserName, launchIdentity } from '../engine/browser/browser-user.js';
import {
  browserCachePath,
  browserInstallHint,
  findBrowser,
  type FoundBrowser,
} from '../engine/browser/find-browser.js';
import { PdfRenderError } from '../errors.js';
import { makeFolder } from '../make-folder.js';
import { fontsLine, packagesFor, uncoveredScripts, type RunForOutput } from './setup-fonts.js';
import type { CliIO } from './io.js';

/** Build the `setup` command. */
export function setupCommand(io: CliIO): Command {
  return new Command('setup')
    .description('find a browser for pdfrender, installing Chromium if there is none (idempotent)')
    .option('--chrome <path>', 'check this Chromium or Chrome binary instead of searching')
    .option('--no-fonts', 'install no fonts (a minimal image); say which scripts will render as empty boxes')
    .action(async (options: { chrome?: string; fonts: boolean }) => {
      const found = findBrowser({ chrome: options.chrome, env: io.env }) ?? (await provision(io));
      io.stderr.write(`browser: ${found.executablePath} (found by ${found.source})\n`);
      if (io.platform === 'linux' && io.isRoot) io.stderr.write(`${await ensureBrowserUser(io.env)}\n`);
      io.stderr.write(`${await ensureFonts(io, options.fonts)}\n`);
    });
}

/** Install fonts for the scripts none covers (Debian/Ubuntu as root, unless `install` is off); the line saying what is covered. */
async function ensureFonts(io: CliIO, install: boolean): Promise<string> {
  const output: RunForOutput = (command, args) => outputOf(command, args, io.env);
  const uncovered = await uncoveredScripts(output);
  if (!install || uncovered === null || uncovered.length === 0 || io.platform !== 'linux' || !io.isRoot)
    return fontsLine(uncovered);
  if (!(await succeeds('apt-get', ['--version'], io.env))) return fontsLine(uncovered);
  const packages = packagesFor(uncovered);
  io.stderr.write(
    `installing fonts for ${uncovered.map((entry) => entry.script).join(', ')}: ${packages.join(' ')} ...\n`,
  );
  const env = { ...io.env, DEBIAN_FRONTEND: 'noninteractive' };
  const installFonts = () => run(io, 'apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], env);
  // The package lists may be missing or stale (a fresh image): read once and tried again.
  if (!(await installFonts()) && (await run(io, 'apt-get', ['update', '-qq'], env))) await installFonts();
  return fontsLine(await uncoveredScripts(output));
}

/**
 * As root, make the system user a root pdfrender runs Chromium as (so its sandbox can be on), and
 * say who Chromium will run as. Without the user (no useradd), `nobody` stands in.
 */
async function ensureBrowserUser(env: NodeJS.ProcessEnv): Promise<string> {
  if (launchIdentity().user?.name !== browserUserName) {
    const home = ['--home-dir', '/nonexistent', '--no-create-home', '--shell', '/usr/sbin/nologin'];
    await succeeds(
      'useradd',
      ['--system', '--user-group', ...home, '--comment', 'pdfrender browser', browserUserName],
      env,
    );
  }
  const identity = launchIdentity();
  if (!identity.user)
    return `browser sandbox: off when pdfrender runs as root (${identity.noSandbox}); run pdfrender as a non-root user to have it`;
  return `browser user: ${identity.user.name} (a root pdfrender runs Chromium as this user, with its sandbox on)`;
}

async function provision(io: CliIO): Promise<FoundBrowser> {
  const say = (line: string) => io.stderr.write(`${line}\n`);
  const attempts: string[] = [];
  if (io.platform === 'linux' && (await succeeds('apt-get', ['--version'], io.env))) {
    if (io.isRoot) {
      say('no browser found; installing Debian/Ubuntu chromium with apt-get ...');
      const env = { ...io.env, DEBIAN_FRONTEND: 'noninteractive' };
      // chromium-headless-shell (Debian 12 and later) starts in half the time; where the
      // distribution has no such package, chromium alone.
      const install = (packages: string[]) => run(io, 'apt-get', ['install', '-y', '-qq', ...packages], env);
      if (
        (await run(io, 'apt-get', ['update', '-qq'], env)) &&
        ((await install(['chromium', 'chromium-headless-shell'])) || (await install(['chromium'])))
      ) {
        const found = findBrowser({ env: io.env });
        if (found) return found;
      }
      attempts.push('`apt-get install chromium` did not provide a browser');
    } else {
      attempts.push('apt-get needs root: run `sudo apt-get install chromium` (or `sudo npx pdfrender setup`)');
    }
  }
  say("trying Chrome for Testing's headless shell download ...");
  try {
    const browsers = await import('@puppeteer/browsers');
    const platform = browsers.detectBrowserPlatform();
    if (!platform) throw new Error('this platform has no Chrome for Testing build');
    const browser = browsers.Browser.CHROMEHEADLESSSHELL;
    const buildId = await browsers.resolveBuildId(browser, platform, 'stable');
    const cacheDir = dirname(browserCachePath(io.env));
    const installed = await browsers.install({ browser, buildId, cacheDir, platform });
    // Remembered in a file so that later runs find it without a network lookup.
    makeFolder(cacheDir);
    await writeFile(browserCachePath(io.env), installed.executablePath);
    return { executablePath: installed.executablePath, source: 'setup' };
  } catch (error) {
    attempts.push(`the Chrome for Testing download failed (${error instanceof Error ? error.message : String(error)})`);
  }
  throw new PdfRenderError(
    'BROWSER_NOT_FOUND',
    `no browser could be installed: ${attempts.join('; ')}; ${browserInstallHint}`,
  );
}

function run(io: CliIO, command: string, args: string[], env: NodeJS.ProcessEnv): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    // apt's output is progress, so it goes where our progress goes: stderr.
    child.stdout.pipe(io.stderr, { end: false });
    child.stderr.pipe(io.stderr, { end: false });
    child.on('error', () => resolve(false));
    child.on('close', (code) => resolve(code === 0));
  });
}

/** Standard output of a command, or null when it could not run or failed. */
function outputOf(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string | null> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'ignore'] });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.on('error', () => resolve(null));
    child.on('close', (code) => resolve(code === 0 ? text : null));
  });
}

function succeeds(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: 'ignore' });
    child.on('error', () => resolve(false));
    child.on('close', (code) => resolve(code === 0));
  });
}
