/**
 * Faults around `pdfrender render`, through the built CLI as child processes: the profile folder a
 * SIGKILLed run leaves is removed by the next run (and no live run's is), a batch whose document
 * hits its deadline never ends with an unhandled error (the pipe reset behind it made on purpose,
 * in this process), and the deadline the user asked for is the one that applies, however long (no
 * puppeteer protocol timeout, no timer overflow, cuts it short).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Readable, Writable } from 'node:stream';
import { spawnBrowser } from '../src/engine/browser/browser-process.js';
import { launchIdentity } from '../src/engine/browser/browser-user.js';
import { launchBrowser } from '../src/engine/browser/launch.js';
import { parseProcStat } from '../src/proc-stat.js';
import { executablePath } from './support/browser.js';
import {
  killLater,
  killLeftovers,
  onlyBrowserOf,
  processesUsing,
  remainingAfter,
} from './support/chromium-processes.js';
import { bin, pdfrender, startServe } from './support/cli.js';
import { busyScript, folderWith, removeTempDirs, tempDir } from './support/files.js';
import { startGate } from './support/gate.js';
import { readPdf } from './support/pdf.js';
import { until } from './support/wait.js';

afterAll(async () => {
  killLeftovers();
  await removeTempDirs();
});

/** `pdfrender render ...args` started in the background; killed after the tests if a failure left it running. */
function startRender(args: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [bin, 'render', ...args], {
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: 'ignore',
  });
  killLater(child.pid);
  return { child, exited: new Promise((resolve) => child.on('close', resolve)) };
}

/** The state letter (R, S, T for stopped...) of each thread of `pid`, from /proc; none once it is gone. */
function threadStates(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/task`).map(
      (task) => parseProcStat(readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8')).state,
    );
  } catch {
    return [];
  }
}

/** The profile folder of the one browser `pid` started, once it runs. */
async function profileOf(pid: number): Promise<string> {
  const found = await onlyBrowserOf(pid, 15_000);
  expect(found).toBeDefined();
  killLater(undefined, found!.profile);
  return found!.profile;
}

describe('profile folders a killed run left', () => {
  it('are removed by the next run, while those of a live serve and a live render stay', async () => {
    // A temp folder of the test's own, so other runs on this machine neither add to it nor see it;
    // as root, Chromium runs as another user, who must be able to reach it (as /tmp is).
    const tmp = await tempDir();
    await chmod(tmp, 0o1777);
    const env = { TMPDIR: tmp };
    // The live render waits on a loopback gate, opened once the next run has swept: it is live for
    // exactly as long as the test needs, however slow the machine.
    const gate = await startGate();
    const docs = await folderWith({
      'slow.html': `${busyScript(30_000)}<p>slow</p>`,
      'busy.html': `<img src="${gate.url}"><p>still going</p>`,
      'page.html': '<p>next run</p>',
    });

    // A run killed mid-render: its browser quits with it, its profile folder stays.
    const killed = startRender([join(docs, 'slow.html'), '-o', join(docs, 'slow.pdf')], env);
    const stale = await profileOf(killed.child.pid!);
    killed.child.kill('SIGKILL');
    await killed.exited;
    expect(await remainingAfter(stale, 5_000)).toEqual([]);
    expect(existsSync(stale)).toBe(true);

    // Live neighbours: a serve, and a render busy for a while, both on the same temp folder.
    const server = await startServe(['--data-dir', await tempDir()], env);
    killLater(server.child.pid);
    const serveProfile = await profileOf(server.child.pid!);
    const live = startRender([join(docs, 'busy.html'), '-o', join(docs, 'busy.pdf')], env);
    const liveProfile = await profileOf(live.child.pid!);
    await gate.reached(1);
    // Folders the rule must tell apart: one with no marker (an older pdfrender's, or one being made)
    // stays; one whose marker names a live pid that started at another time (a reused pid) goes.
    const unmarked = join(tmp, 'pdfrender-profile-unmarked');
    await mkdir(unmarked);
    const reused = join(tmp, 'pdfrender-profile-reused');
    await mkdir(reused);
    await writeFile(join(reused, 'pdfrender-owner.json'), JSON.stringify({ pid: process.pid, started: '1' }));

    try {
      const next = await pdfrender(['render', join(docs, 'page.html'), '-o', join(docs, 'page.pdf')], { env });
      expect(next.code).toBe(0);
      expect((await readPdf(await readFile(join(docs, 'page.pdf')))).pages[0]!.text).toContain('next run');

      expect(existsSync(stale)).toBe(false);
      expect(existsSync(reused)).toBe(false);
      expect(existsSync(unmarked)).toBe(true);
      expect(existsSync(serveProfile)).toBe(true);
      // The live render was still going while the next run swept, and its profile was left alone.
      expect(live.child.exitCode).toBe(null);
      expect(existsSync(liveProfile)).toBe(true);
      gate.open();
      expect(await live.exited).toBe(0);
      expect((await readPdf(await readFile(join(docs, 'busy.pdf')))).pages[0]!.text).toContain('still going');
      const response = await fetch(`${server.url}/api/pdfs/render-sync`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ htmlContent: '<p>serve still fine</p>' }),
      });
      expect(response.status).toBe(200);
    } finally {
      gate.close();
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }, 120_000);
});

describe('a batch whose document hits its deadline', () => {
  // Killing the browser at the end of the run, with the page of the timed-out document still being
  // closed, left a message on the DevTools pipe unread; the reset pipe then raised an error nobody
  // listened to (`Error: read ECONNRESET` after the summary, exit 1 either way). It came in 2 runs of
  // 8 and was hunted with a loop of 20 runs that missed it about once in 100; the next test makes
  // that reset on purpose, every time, and this run keeps what the user sees end to end.
  it('ends with the summary and exit 1, never with an unhandled error', async () => {
    const docs = await folderWith({ 'loop.html': '<script>while(true){}</script>', 'fine.html': '<p>fine</p>' });
    const result = await pdfrender([
      'render',
      join(docs, 'loop.html'),
      join(docs, 'fine.html'),
      '--out-dir',
      join(docs, 'out'),
      '--timeout',
      '1s',
    ]);
    expect(result.stderr).not.toMatch(/ECONNRESET|Unhandled|node:events/);
    expect(result.stderr).toMatch(/loop\.html: the document did not finish rendering within the 1 s deadline/);
    expect(result.stderr).toMatch(/1 of 2 PDFs rendered/);
    expect(result.code).toBe(1);
    expect((await readPdf(await readFile(join(docs, 'out', 'fine.pdf')))).pages[0]!.text).toContain('fine');
  });

  it('survives the DevTools pipe being reset by a browser killed with a message of ours unread', async () => {
    // The fault the batch above hit by chance, made every time: a browser that answered on its pipe
    // is stopped (SIGSTOP: nothing of it reads any more), sent a message, and killed, so the kernel
    // resets our end (Linux: a socket closed with unread data). With no listener of ours on the
    // pipe (puppeteer drops its own when it disconnects) that error ends the process. Failed 5 runs
    // of 5 with the listener in browser-process.ts taken out.
    const unhandled: Error[] = [];
    const record = (error: Error) => unhandled.push(error);
    process.on('uncaughtExceptionMonitor', record);
    const started = spawnBrowser(executablePath, [], launchIdentity());
    killLater(started.pid, started.profileDir);
    try {
      // fds 3 and 4: the DevTools pipe, ours to write and to read.
      const pipeIn = started.child.stdio[3] as Writable;
      const pipeOut = started.child.stdio[4] as Readable;
      const answered = new Promise((resolve) => pipeOut.once('data', resolve));
      pipeIn.write('{"id":1,"method":"Browser.getVersion"}\0');
      await answered;
      // The whole group: the executable may be a wrapper script whose child is Chromium.
      process.kill(-started.pid!, 'SIGSTOP');
      // A signal lands a moment after kill() returns: wait until every thread of every process has stopped.
      await until(
        () => processesUsing(started.profileDir).every((pid) => threadStates(pid).every((state) => state === 'T')),
        'the browser to stop',
      );
      pipeIn.write('{"id":2,"method":"Browser.getVersion"}\0');
      started.discard();
      await started.exited;
      // The reset reached our end of the pipe: the fault happened, and was handled.
      await until(() => pipeIn.destroyed, 'the DevTools pipe to close');
      expect((pipeIn.errored as NodeJS.ErrnoException | null)?.code).toBe('ECONNRESET');
      expect(unhandled).toEqual([]);
    } finally {
      process.off('uncaughtExceptionMonitor', record);
    }
  });
});

describe('the deadline the user asked for', () => {
  it('is not cut short by a per-call DevTools timeout: the browser connection has none', async () => {
    // Every render step races the render's own deadline; puppeteer's 180 s default would otherwise
    // end a longer --timeout with "Runtime.callFunctionOn timed out. Increase the 'protocolTimeout'".
    const launched = await launchBrowser(executablePath);
    try {
      const session = await launched.browser.target().createCDPSession();
      expect(session.connection()?.timeout).toBe(0);
    } finally {
      await launched.close(true);
    }
  });

  it('holds however long: --timeout 30d renders (a timer that long would fire at once)', async () => {
    const docs = await folderWith({ 'page.html': '<p>patient</p>' });
    const result = await pdfrender([
      'render',
      join(docs, 'page.html'),
      '-o',
      join(docs, 'page.pdf'),
      '--timeout',
      '30d',
    ]);
    expect(result.stderr).not.toMatch(/deadline|TimeoutOverflowWarning/);
    expect(result.code).toBe(0);
    expect((await readPdf(await readFile(join(docs, 'page.pdf')))).pages[0]!.text).toContain('patient');
  });
});
