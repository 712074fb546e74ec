/**
 * Starting the Chromium process for printing, without puppeteer: its flags, the throw-away profile,
 * the user it runs as, and the DevTools pipe on fds 3 and 4 (launch.ts connects puppeteer to it).
 * Nothing here loads puppeteer, so the CLI can start Chromium first thing (early-start.ts) and have
 * it come up while the rest of pdfrender loads.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PdfRenderError } from '../../errors.js';
import { setprivArgs, type BrowserUser, type LaunchIdentity } from './browser-user.js';
import { markProfile, profilePrefix } from './profile-owner.js';

/**
 * Features switched off. Puppeteer's defaults first (Translate to IsolateSandboxedIframes), then ours:
 * unused browser UI that otherwise costs start-up time in headless mode. BackForwardCache and
 * Prerender2: a document navigated away from must be gone, not kept frozen (timers and all) where a
 * history navigation could bring it back, and no document may start pages of its own. RenderDocument:
 * a new renderer document per navigation doubles the cost of a pooled page's fresh window (measured
 * 21 -> 12 ms); documents stay in their own browser context's process either way.
 */
const disabledFeatures = [
  ...[
    'Translate',
    'AcceptCHFrame',
    'MediaRouter',
    'OptimizationHints',
    'WebUIReloadButton',
    'ProcessPerSiteUpToMainFrameThreshold',
    'IsolateSandboxedIframes',
  ],
  ...['WebUIOmniboxPopup', 'WebUIOmniboxFullPopup', 'BackForwardCache', 'Prerender2', 'RenderDocument'],
];

/**
 * The flags every browser starts with, as puppeteer's launch put them together before pdfrender
 * started Chromium itself (test/launch-flags.test.ts holds them to puppeteer's own list). Left out of
 * puppeteer's: --export-tagged-pdf and --generate-pdf-document-outline, which make every PDF tagged
 * and outlined at about 40% of print time and 2.7x the file size (requests that want them ask per
 * document).
 */
export const chromiumFlags = [
  ...[
    '--allow-pre-commit-input',
    '--disable-background-timer-throttling',
    '--disable-backgrounding-occluded-windows',
    '--disable-breakpad',
  ],
  ...[
    '--disable-client-side-phishing-detection',
    '--disable-component-extensions-with-background-pages',
    '--disable-crash-reporter',
  ],
  ...[
    '--disable-default-apps',
    '--disable-dev-shm-usage',
    '--disable-hang-monitor',
    '--disable-infobars',
    '--disable-ipc-flooding-protection',
  ],
  ...[
    '--disable-popup-blocking',
    '--disable-prompt-on-repost',
    '--disable-renderer-backgrounding',
    '--disable-search-engine-choice-screen',
  ],
  ...[
    '--disable-sync',
    '--enable-automation',
    '--force-color-profile=srgb',
    '--metrics-recording-only',
    '--password-store=basic',
    '--use-mock-keychain',
  ],
  `--disable-features=${disabledFeatures.join(',')}`,
  '--enable-features=PdfOopif',
  ...['--headless=new', '--hide-scrollbars', '--mute-audio', '--disable-extensions'],
  '--disable-gpu',
  // Without these Chromium keeps dialling Google services, which on a closed network means
  // a stream of refused connections at every start.
  ...[
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-domain-reliability',
    '--disable-quic',
  ],
  ...['--no-first-run', '--no-default-browser-check'],
];

/** A Chromium process started for printing, not yet connected to. */
export interface BrowserProcess {
  child: ChildProcess;
  /** Chromium's process id, which is also its process group id (it is started detached). */
  pid: number | undefined;
  /** The throw-away profile folder. */
  profileDir: string;
  /** The binary and the extra flags it was started with (for matching an early start to a launch). */
  executablePath: string;
  extraArgs: readonly string[];
  identity: LaunchIdentity;
  /** Resolves once the process has exited. */
  exited: Promise<void>;
  /** Kill its process group now and remove its profile; for a process about to exit, or a browser not wanted. */
  discard(): void;
}

/**
 * Chromium's whole argument list for a launch with profile `userDataDir`. No URL: puppeteer's launch
 * gave about:blank, whose tab nothing uses (every page is made in a browser context of its own) and
 * whose renderer process cost every start its CPU; without a URL the headless shell opens no tab.
 */
export function browserArgs(userDataDir: string, extraArgs: readonly string[], identity: LaunchIdentity): string[] {
  // Chromium takes the last --enable-features it is given: features the extra flags enable join the common ones.
  const enable = '--enable-features=';
  const features = extraArgs.filter((arg) => arg.startsWith(enable)).map((arg) => arg.slice(enable.length));
  return [
    `--user-data-dir=${userDataDir}`,
    ...(identity.noSandbox ? ['--no-sandbox'] : []),
    ...chromiumFlags.map((flag) => (flag.startsWith(enable) ? [flag, ...features].join(',') : flag)),
    ...extraArgs.filter((arg) => !arg.startsWith(enable)),
    '--remote-debugging-pipe',
  ];
}

/**
 * Start Chromium with a fresh profile (nothing, cookies, cache or storage, survives a relaunch) and
 * the DevTools pipe on fds 3 and 4. As `identity.user` it runs through setpriv, which execs it, so
 * the pid, its process group and the pipe are those started here. Synchronous up to the spawn, so
 * an early start has Chromium on its way before anything else runs.
 */
export function spawnBrowser(
  executablePath: string,
  extraArgs: readonly string[],
  identity: LaunchIdentity,
): BrowserProcess {
  if (identity.user) assertReachable(tmpdir(), identity.user);
  const profileDir = mkdtempSync(join(tmpdir(), profilePrefix));
  let child: ChildProcess;
  try {
    // Names this process as the folder's owner, so a later run removes it if this one is killed.
    try {
      markProfile(profileDir);
    } catch {
      // only the clean-up after a killed run depends on it
    }
    const { user, setpriv } = identity;
    if (user) chownSync(profileDir, user.uid, user.gid);
    const args = browserArgs(profileDir, extraArgs, identity);
    child = spawn(
      user && setpriv ? setpriv : executablePath,
      user && setpriv ? [...setprivArgs(user), executablePath, ...args] : args,
      {
        // A process group of its own: one signal kills the browser with every process it started, and a
        // signal to pdfrender's group (Ctrl-C) never reaches it; pdfrender closes it itself.
        detached: true,
        // fds 3 and 4 are the DevTools pipe. The pipe is also what keeps Chromium from outliving
        // pdfrender: Chromium quits when its end closes, and the kernel closes it however pdfrender
        // dies, SIGKILL included (measured: every Chromium process gone within 0.5 s, renderers stuck
        // in scripts too). A browser too hung to notice is what browser-record.ts is for.
        stdio: ['pipe', 'pipe', 'pipe', 'pipe', 'pipe'],
        // root's home and temp folder are not the browser user's to write (printing streams the PDF
        // through a temp file); its files go to the profile, removed with it.
        env: user
          ? {
              ...process.env,
              HOME: profileDir,
              TMPDIR: profileDir,
              XDG_CONFIG_HOME: join(profileDir, '.config'),
              XDG_CACHE_HOME: join(profileDir, '.cache'),
            }
          : process.env,
      },
    );
  } catch (error) {
    rmSync(profileDir, { recursive: true, force: true });
    throw error;
  }
  // Chromium's output is read and dropped: a full pipe would stall it. An error on any of its pipes
  // (a browser killed with our last message unread resets the DevTools pipe: read ECONNRESET) must
  // not end pdfrender as an unhandled error; the connection notices the browser going on its own.
  child.stdout?.resume();
  child.stderr?.resume();
  for (const stream of child.stdio) stream?.on('error', () => undefined);
  const pid = child.pid;
  // Whatever ends pdfrender, process.exit included, takes the browser with it.
  const onExit = () => killGroup(pid);
  process.on('exit', onExit);
  const exited = new Promise<void>((resolve) => {
    // 'error' without 'exit' when the binary could not be started at all.
    child.once('error', () => resolve());
    child.once('exit', () => resolve());
  }).finally(() => process.off('exit', onExit));
  let discarded = false;
  return {
    child,
    pid,
    profileDir,
    executablePath,
    extraArgs,
    identity,
    exited,
    discard() {
      if (discarded) return;
      discarded = true;
      killGroup(pid);
      removeProfile(profileDir);
    },
  };
}

/**
 * The profile is made in the temp folder and handed to the browser user, who must be able to pass
 * through every folder above it: a root pdfrender with TMPDIR in a private folder (mode 0700) would
 * otherwise see Chromium exit at once with nothing but "Target closed" to say why.
 */
function assertReachable(folder: string, user: BrowserUser): void {
  for (let dir = folder; ; dir = dirname(dir)) {
    const stats = statSync(dir, { throwIfNoEntry: false });
    if (!stats) return; // mkdtemp names a missing folder itself
    // setpriv clears the user's supplementary groups, so its own uid and gid are all that count (ACLs aside).
    const bit = stats.uid === user.uid ? 0o100 : stats.gid === user.gid ? 0o010 : 0o001;
    if (!(stats.mode & bit)) {
      throw new PdfRenderError(
        'BROWSER_NOT_FOUND',
        `Chromium runs as user ${user.name}, who cannot reach the temp folder ${folder} (${dir} is mode ${(stats.mode & 0o777).toString(8)}) for its profile: set TMPDIR to a folder that user can pass through, such as /tmp`,
      );
    }
    if (dir === dirname(dir)) return;
  }
}

/**
 * Remove a profile folder now (synchronous: this also runs as pdfrender exits). A browser killed an
 * instant ago may still finish a file it was writing, so a folder still there is tried once more.
 */
export function removeProfile(profileDir: string): void {
  for (let attempt = 0; attempt < 2 && existsSync(profileDir); attempt += 1) {
    try {
      rmSync(profileDir, { recursive: true, force: true, maxRetries: 2 });
    } catch {
      // left for a later run's sweep, by the marker naming this process (gone by then)
    }
  }
}

/** SIGKILL a browser's whole process group (renderers, zygotes and utilities with it); quiet if it is gone. */
export function killGroup(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is gone, and its leader with it (the browser is always started as one); a kill of
    // the bare pid could only reach a process that reused it.
  }
}

/**
 * A browser the CLI started before pdfrender loaded (early-start.ts), until a launch takes it. Held
 * by the process, not this module: the early start runs from dist/cli/ and the CLI may run from the
 * bundle (bundle-loader.ts), each with its own copy of this module.
 */
const handoff = ((globalThis as Record<symbol, unknown>)[Symbol.for('pdfrender.earlyBrowser')] ??= {}) as {
  early?: BrowserProcess;
};

/**
 * Start a browser now for a launch to come (see takeEarlyBrowser). One never taken, because the run
 * ended before it rendered (a usage error, help), is killed and its profile removed at exit.
 */
export function spawnEarlyBrowser(
  executablePath: string,
  extraArgs: readonly string[],
  identity: LaunchIdentity,
): void {
  const started = spawnBrowser(executablePath, extraArgs, identity);
  handoff.early = started;
  process.once('exit', () => {
    if (handoff.early === started) started.discard();
  });
}

/**
 * The early browser, when it was started with exactly this binary, these flags and this identity;
 * otherwise undefined, and an early browser that does not match is discarded. Taken once.
 */
export function takeEarlyBrowser(
  executablePath: string,
  extraArgs: readonly string[],
  identity: LaunchIdentity,
): BrowserProcess | undefined {
  const taken = handoff.early;
  handoff.early = undefined;
  if (!taken) return undefined;
  const same =
    taken.executablePath === executablePath &&
    JSON.stringify(taken.extraArgs) === JSON.stringify(extraArgs) &&
    JSON.stringify(taken.identity) === JSON.stringify(identity);
  if (same) return taken;
  taken.discard();
  return undefined;
}
