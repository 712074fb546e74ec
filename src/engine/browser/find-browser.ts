/**
 * Browser discovery: an explicit path, then the environment, then the usual system locations.
 * puppeteer-core never downloads a browser, so an offline `npm install` cannot break on it.
 */
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { PdfRenderError } from '../../errors.js';

/** Where a browser path came from, for messages ("found by PDFRENDER_CHROME"). */
export type BrowserSource = '--chrome' | 'PDFRENDER_CHROME' | 'PUPPETEER_EXECUTABLE_PATH' | 'PATH' | 'system' | 'setup';

export interface FoundBrowser {
  executablePath: string;
  source: BrowserSource;
}

/**
 * Names looked up on PATH, in order of preference. The headless shells come first: they print the
 * same PDFs from the same Blink, and start in about half the time of the full browser (measured
 * here: a cold `pdfrender render` of the invoice in 650 ms against 1175 ms).
 */
export const browserCommands = [
  'chromium-headless-shell',
  'chrome-headless-shell',
  'chromium',
  'chromium-browser',
  'google-chrome',
  'google-chrome-stable',
  'chrome',
];

/** Absolute locations tried after PATH (Debian/Ubuntu snaps, /opt installs, macOS app bundles). */
export const systemBrowserPaths = [
  '/usr/bin/chromium-headless-shell',
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/snap/bin/chromium',
  '/usr/bin/google-chrome',
  '/opt/google/chrome/chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing',
];

/** The one-line fix printed whenever no browser is found. */
export const browserInstallHint =
  'install one with `npx pdfrender setup` (as root on Debian/Ubuntu it runs `apt-get install chromium`), or point --chrome or PDFRENDER_CHROME at a Chromium or Chrome binary';

export interface FindBrowserOptions {
  /** The --chrome flag, when given. */
  chrome?: string | undefined;
  env?: NodeJS.ProcessEnv;
  /** Fixed locations to try after PATH; default systemBrowserPaths. */
  systemPaths?: readonly string[];
}

/** Find a browser, or return null when there is none anywhere. An explicit path that is not executable is an error. */
export function findBrowser(options: FindBrowserOptions = {}): FoundBrowser | null {
  const env = options.env ?? process.env;
  const explicit: Array<[BrowserSource, string | undefined]> = [
    ['--chrome', options.chrome],
    ['PDFRENDER_CHROME', env.PDFRENDER_CHROME],
    ['PUPPETEER_EXECUTABLE_PATH', env.PUPPETEER_EXECUTABLE_PATH],
  ];
  for (const [source, path] of explicit) {
    if (!path) continue;
    // A path the user named must work: silently falling back to another browser would hide their mistake.
    if (!isExecutable(path)) {
      throw new PdfRenderError(
        'BROWSER_NOT_FOUND',
        `the browser given by ${source} (${path}) does not exist or is not executable; ${browserInstallHint}`,
      );
    }
    return { executablePath: path, source };
  }
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    for (const command of browserCommands) {
      const candidate = join(dir, command);
      if (isExecutable(candidate)) return { executablePath: candidate, source: 'PATH' };
    }
  }
  for (const candidate of options.systemPaths ?? systemBrowserPaths) {
    if (isExecutable(candidate)) return { executablePath: candidate, source: 'system' };
  }
  const downloaded = readBrowserCache(env);
  if (downloaded && isExecutable(downloaded)) return { executablePath: downloaded, source: 'setup' };
  return null;
}

/** The file in which `pdfrender setup` remembers a browser it downloaded. */
export function browserCachePath(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'pdfrender', 'browser-path');
}

function readBrowserCache(env: NodeJS.ProcessEnv): string | null {
  try {
    return readFileSync(browserCachePath(env), 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/** Like findBrowser, but a missing browser is a BROWSER_NOT_FOUND error with the fix in its message. */
export function requireBrowser(options: FindBrowserOptions = {}): FoundBrowser {
  const found = findBrowser(options);
  if (!found) throw new PdfRenderError('BROWSER_NOT_FOUND', `no Chromium or Chrome found; ${browserInstallHint}`);
  return found;
}

/** True for an executable file. X_OK alone holds for every searchable directory, so a folder named "chromium" must not pass. */
export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
