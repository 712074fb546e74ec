/**
 * Launching Chromium for printing: puppeteer-core over a pipe, with the flags that keep a headless
 * print server quiet on a closed network and fast at printing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { PdfRenderError } from '../errors.js';
import { browserInstallHint } from './find-browser.js';

/** Flags added to puppeteer's defaults. Each one is here for a measured or observed reason. */
export const chromiumFlags = [
  // Root (containers, CI) cannot use the sandbox; puppeteer does not add this for us.
  ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
  '--disable-gpu',
  // Without these Chromium keeps dialling Google services, which on a closed network means
  // a stream of refused connections at every start.
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-domain-reliability',
  '--disable-quic',
  '--no-first-run',
  '--no-default-browser-check',
  // Unused browser UI that otherwise costs start-up time in headless mode.
  '--disable-features=WebUIOmniboxPopup,WebUIOmniboxFullPopup,MediaRouter,OptimizationHints,Translate',
];

/**
 * Puppeteer's defaults that we drop: these make every PDF tagged and outlined, which costs
 * about 40% of print time and 2.7x the file size; requests that want them ask per document.
 */
export const droppedDefaultFlags = ['--export-tagged-pdf', '--generate-pdf-document-outline'];

export interface LaunchedBrowser {
  browser: Browser;
  /** Close the browser and remove its profile directory. */
  close(): Promise<void>;
}

/** Launch a headless Chromium with a throw-away profile. */
export async function launchBrowser(executablePath: string, extraArgs: readonly string[] = []): Promise<LaunchedBrowser> {
  // A fresh profile per launch: nothing (cookies, cache, storage) survives a relaunch.
  const userDataDir = await mkdtemp(join(tmpdir(), 'pdfrender-profile-'));
  let browser: Browser;
  try {
    browser = await puppeteer.launch({
      executablePath,
      headless: true,
      pipe: true,
      userDataDir,
      args: [...chromiumFlags, ...extraArgs],
      ignoreDefaultArgs: droppedDefaultFlags,
      // pdfrender owns shutdown (it closes the browser itself on signals), so puppeteer must not
      // install its own process-wide signal handlers that exit the process early.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      timeout: 30_000,
    });
  } catch (error) {
    await rm(userDataDir, { recursive: true, force: true });
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new PdfRenderError('BROWSER_NOT_FOUND', `could not start the browser at ${executablePath}: ${reason}; ${browserInstallHint}`, {
      cause: error,
    });
  }
  let closed: Promise<void> | undefined;
  return {
    browser,
    close: () =>
      (closed ??= (async () => {
        await browser.close().catch(() => browser.process()?.kill('SIGKILL'));
        await rm(userDataDir, { recursive: true, force: true }).catch(() => undefined);
      })()),
  };
}
