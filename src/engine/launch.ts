/**
 * Launching Chromium for printing: puppeteer-core over a pipe, with the flags that keep a headless
 * print server quiet on a closed network and fast at printing.
 */
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { PdfRenderError } from '../errors.js';
import { describeSandbox, launchIdentity, setprivArgs, type LaunchIdentity } from './browser-user.js';
import { browserInstallHint } from './find-browser.js';
import { markProfile, profilePrefix } from './profile-owner.js';

/** Flags added to puppeteer's defaults. Each one is here for a measured or observed reason. */
export const chromiumFlags = [
  '--disable-gpu',
  // Without these Chromium keeps dialling Google services, which on a closed network means
  // a stream of refused connections at every start.
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-domain-reliability',
  '--disable-quic',
  '--no-first-run',
  '--no-default-browser-check',
  // Unused browser UI that otherwise costs start-up time in headless mode. BackForwardCache and
  // Prerender2: a document navigated away from must be gone, not kept frozen (timers and all) where a
  // history navigation could bring it back, and no document may start pages of its own. RenderDocument:
  // a new renderer document per navigation doubles the cost of a pooled page's fresh window (measured
  // 21 -> 12 ms); documents stay in their own browser context's process either way.
  '--disable-features=WebUIOmniboxPopup,WebUIOmniboxFullPopup,MediaRouter,OptimizationHints,Translate,BackForwardCache,Prerender2,RenderDocument',
];

/**
 * Puppeteer's defaults that we drop: these make every PDF tagged and outlined, which costs
 * about 40% of print time and 2.7x the file size; requests that want them ask per document.
 */
export const droppedDefaultFlags = ['--export-tagged-pdf', '--generate-pdf-document-outline'];

export interface LaunchedBrowser {
  browser: Browser;
  /** Chromium's process id, which is also its process group id (puppeteer starts it detached). */
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

/**
 * Launch a headless Chromium with a throw-away profile. As root it runs as an unprivileged user with
 * its sandbox on (see browser-user.ts); where the sandbox cannot start there, it runs without one.
 */
export async function launchBrowser(
  executablePath: string,
  extraArgs: readonly string[] = [],
  identity: LaunchIdentity = { ...launchIdentity(), ...(noSandboxHere && { noSandbox: noSandboxHere }) },
): Promise<LaunchedBrowser> {
  // A fresh profile per launch: nothing (cookies, cache, storage) survives a relaunch.
  const userDataDir = await mkdtemp(join(tmpdir(), profilePrefix));
  let browser: Browser;
  try {
    // Names this process as the folder's owner, so a later run removes it if this one is killed.
    await markProfile(userDataDir).catch(() => undefined);
    const { user } = identity;
    if (user) await chown(userDataDir, user.uid, user.gid);
    const args = [...(identity.noSandbox ? ['--no-sandbox'] : []), ...chromiumFlags, ...extraArgs];
    browser = await puppeteer.launch({
      // setpriv goes first and execs Chromium, so puppeteer's own arguments are put together here.
      ...(user
        ? {
            executablePath: identity.setpriv,
            args: [...setprivArgs(user), executablePath, ...puppeteer.defaultArgs({ headless: true, userDataDir, args }).filter((arg) => !droppedDefaultFlags.includes(arg))],
            ignoreDefaultArgs: true,
            // root's home is not the browser user's to write; its few files go to the profile, removed with it.
            env: { ...process.env, HOME: userDataDir, XDG_CONFIG_HOME: join(userDataDir, '.config'), XDG_CACHE_HOME: join(userDataDir, '.cache') },
          }
        : { executablePath, args, ignoreDefaultArgs: droppedDefaultFlags }),
      headless: true,
      // The pipe is also what keeps Chromium from outliving pdfrender: Chromium quits when its end of
      // the DevTools pipe closes, and the kernel closes it however pdfrender dies, SIGKILL included
      // (measured: every Chromium process gone within 0.5 s, renderers stuck in scripts too).
      // Puppeteer starts Chromium in a process group of its own, so a signal to pdfrender's group
      // never reaches it; the pipe does. A browser too hung to notice is what browser-record.ts is for.
      pipe: true,
      userDataDir,
      // pdfrender owns shutdown (it closes the browser itself on signals), so puppeteer must not
      // install its own process-wide signal handlers that exit the process early.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      timeout: 30_000,
      // No timeout per DevTools call (puppeteer's is 180 s, and ends a longer --timeout with its own
      // message): every step of a render races the render's own deadline, closes have a grace of
      // their own, and a browser that stops answering is killed by its watchdog (browser-watchdog.ts).
      protocolTimeout: 0,
    });
  } catch (error) {
    await rm(userDataDir, { recursive: true, force: true });
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    // A container whose seccomp profile refuses user namespaces (Docker's default) has no sandbox for
    // a non-root user either, and Chromium then exits at once ("No usable sandbox!", which puppeteer
    // does not pass on over a pipe). If it starts without one, that was it: run so, but as that user
    // still, and remember it for this process's later launches.
    if (identity.user && !identity.noSandbox) {
      const noSandbox = `Chromium could not start its sandbox as user ${identity.user.name} (user namespaces are refused here, as in a container's default seccomp profile)`;
      const launched = await launchBrowser(executablePath, extraArgs, { ...identity, noSandbox }).catch(() => undefined);
      if (launched) {
        noSandboxHere = noSandbox;
        return launched;
      }
    }
    throw new PdfRenderError('BROWSER_NOT_FOUND', `could not start the browser at ${executablePath}: ${reason}; ${browserInstallHint}`, {
      cause: error,
    });
  }
  // Puppeteer stops listening for errors on the DevTools pipe when it disconnects. A browser killed
  // with our last message still unread on its side then resets the pipe (read ECONNRESET), and an
  // error with no listener ends the process: the CLI after a document hit its deadline, 2 runs in 8.
  for (const stream of browser.process()?.stdio ?? []) stream?.on('error', () => undefined);
  let closed: Promise<void> | undefined;
  const pid = browser.process()?.pid;
  return {
    browser,
    pid,
    profileDir: userDataDir,
    sandbox: describeSandbox(identity),
    close: (kill = false) =>
      (closed ??= (async () => {
        if (kill) {
          killGroup(pid);
          browser.disconnect().catch(() => undefined);
        } else {
          // A hung browser never answers Browser.close, so the close gets a deadline.
          const timeout = new Promise<boolean>((resolve) => setTimeout(resolve, closeGraceMs, false).unref());
          const graceful = browser.close().then(() => true, () => false);
          if (!(await Promise.race([graceful, timeout]))) killGroup(pid);
        }
        await rm(userDataDir, { recursive: true, force: true }).catch(() => undefined);
      })()),
  };
}

/** SIGKILL a browser's whole process group (renderers, zygotes and utilities with it); quiet if it is gone. */
export function killGroup(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is gone, and its leader with it (puppeteer always starts the browser as one); a
    // kill of the bare pid could only reach a process that reused it.
  }
}
