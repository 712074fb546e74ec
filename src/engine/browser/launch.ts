/**
 * Launching Chromium for printing: the process (browser-process.ts, or the one the CLI started
 * early) and puppeteer connected to it over the DevTools pipe.
 */
import { rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { pipeline } from 'node:stream';
import type { Readable, Writable } from 'node:stream';
import type { Browser, ConnectOptions } from 'puppeteer-core';
// Puppeteer's public connect(), imported from its module rather than the package entry: the entry
// also loads the launchers and @puppeteer/browsers, about 100 ms of a cold start that pdfrender,
// which starts Chromium itself, never uses.
import { Puppeteer } from 'puppeteer-core/internal/common/Puppeteer.js';
import { PipeTransport } from 'puppeteer-core/internal/node/PipeTransport.js';
import { PdfRenderError } from '../../errors.js';
import { valueWithin } from '../../race.js';
import { killGroup, removeProfile, spawnBrowser, takeEarlyBrowser, type BrowserProcess } from './browser-process.js';
import { describeSandbox, launchIdentity, type LaunchIdentity } from './browser-user.js';
import { capMessages } from './capped-messages.js';
import { withoutUnneededCommands } from './unneeded-commands.js';
import { browserInstallHint } from './find-browser.js';

export interface LaunchedBrowser {
  browser: Browser;
  /** Chromium's process id, which is also its process group id (it is started detached). */
  pid: number | undefined;
  /** The throw-away profile folder, removed by close(). */
  profileDir: string;
  /** Whether Chromium's sandbox is on and as whom Chromium runs, in one line for logs. */
  sandbox: string;
  /**
   * Close the browser (killing its process group if it does not close in time) and remove its
   * profile directory; with `kill`, kill it at once (nothing of it is needed any more).
   */
  close(kill?: boolean): Promise<void>;
}

/** Why the sandbox could not start in this process, once a launch found out; later launches skip the try. */
let noSandboxHere: string | undefined;

/** How long a graceful close may take before the browser's process group is killed. */
const closeGraceMs = 5_000;

/** How long a starting browser may take to answer on its pipe (puppeteer's launch timeout). */
const startTimeoutMs = 30_000;

// The module's own declarations and the package's rolled-up ones name the same classes apart.
const puppeteer = new Puppeteer({ isPuppeteerCore: true }) as unknown as {
  connect(options: ConnectOptions): Promise<Browser>;
};

/**
 * Launch a headless Chromium with a throw-away profile. As root it runs as an unprivileged user with
 * its sandbox on (see browser-user.ts); where the sandbox cannot start there, it runs without one.
 */
export async function launchBrowser(
  executablePath: string,
  extraArgs: readonly string[] = [],
  identity: LaunchIdentity = { ...launchIdentity(), ...(noSandboxHere && { noSandbox: noSandboxHere }) },
): Promise<LaunchedBrowser> {
  let started: BrowserProcess | undefined;
  let browser: Browser;
  try {
    started =
      takeEarlyBrowser(executablePath, extraArgs, identity) ?? spawnBrowser(executablePath, extraArgs, identity);
    browser = await connect(started);
  } catch (error) {
    started?.discard();
    if (error instanceof PdfRenderError) throw error; // already says what is wrong
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    // A container whose seccomp profile refuses user namespaces (Docker's default) has no sandbox for
    // a non-root user either, and Chromium then exits at once ("No usable sandbox!", on its stderr,
    // not the pipe). If it starts without one, that was it: run so, but as that user still, and
    // remember it for this process's later launches.
    if (identity.user && !identity.noSandbox) {
      const noSandbox = `Chromium could not start its sandbox as user ${identity.user.name} (user namespaces are refused here, as in a container's default seccomp profile)`;
      const launched = await launchBrowser(executablePath, extraArgs, { ...identity, noSandbox }).catch(
        () => undefined,
      );
      if (launched) {
        noSandboxHere = noSandbox;
        return launched;
      }
    }
    throw new PdfRenderError(
      'BROWSER_NOT_FOUND',
      `could not start the browser at ${executablePath}: ${reason}; ${browserInstallHint}`,
      {
        cause: error,
      },
    );
  }
  const { pid, profileDir, exited } = started;
  let closed: Promise<void> | undefined;
  return {
    browser,
    pid,
    profileDir,
    sandbox: describeSandbox(identity),
    close: (kill = false) =>
      (closed ??= (async () => {
        if (kill) {
          // The profile goes first, while the idle browser leaves it alone, then the browser: killed
          // first, its processes tear down on both cores while the removal and pdfrender's exit wait.
          // Removed synchronously: for the ~50 files a profile on disk holds (a server's browser; the
          // CLI's keeps its own in memory), the promise API's separate lstat, readdir and unlink
          // round trips through the thread pool cost 6.8 ms of CPU. Once
          // and without retries, which sleep: a server kills a hung browser this way too, and a
          // file the live browser writes meanwhile is left for removeProfile below.
          try {
            rmSync(profileDir, { recursive: true, force: true });
          } catch {
            // removed after the kill
          }
          killGroup(pid);
          browser.disconnect().catch(() => undefined);
          removeProfile(profileDir); // whatever it wrote in between
          return;
        }
        // A hung browser never answers Browser.close, so the close gets a deadline.
        const graceful = browser
          .close()
          .then(() => exited)
          .then(
            () => true,
            () => false,
          );
        if (!(await valueWithin(graceful, closeGraceMs, false))) killGroup(pid);
        await rm(profileDir, { recursive: true, force: true }).catch(() => undefined);
      })()),
  };
}

/** Puppeteer over the browser's DevTools pipe, once it answers; rejects if it exits or takes too long first. */
async function connect(started: BrowserProcess): Promise<Browser> {
  const { child, exited } = started;
  // No target's Runtime domain is ever enabled: its events carry a document's console and exceptions by value.
  // And no message from the browser is read whole past a bound (capped-messages.ts). A pipeline, so that
  // the pipe's end or error (the browser killed) closes what puppeteer reads, as it would the pipe.
  const capped = capMessages();
  pipeline(child.stdio[4] as Readable, capped, () => undefined);
  const transport = withoutUnneededCommands(new PipeTransport(child.stdio[3] as Writable, capped));
  let timer: NodeJS.Timeout | undefined;
  const failed = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`it did not answer within ${startTimeoutMs / 1000} s`)), startTimeoutMs);
    void exited.then(() =>
      reject(
        new Error(
          `it exited as it started (${child.exitCode !== null ? `code ${child.exitCode}` : `signal ${child.signalCode}`})`,
        ),
      ),
    );
  });
  try {
    return await Promise.race([
      puppeteer.connect({
        transport,
        // No timeout per DevTools call (puppeteer's is 180 s, and ends a longer --timeout with its own
        // message): every step of a render races the render's own deadline, closes have a grace of
        // their own, and a browser that stops answering is killed by its watchdog (browser-watchdog.ts).
        protocolTimeout: 0,
        // Every print sets its own viewport (print-viewport.ts), so puppeteer's 800x600 default is two
        // Emulation commands per new page for nothing; nor does anything here read the Audits domain's issues.
        defaultViewport: null,
        issuesEnabled: false,
      }),
      failed,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
