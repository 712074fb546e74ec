/**
 * Chromium's sandbox: on whoever runs pdfrender. As root (this machine, CI, containers) Chromium runs
 * as an unprivileged user, so its renderers are in their own namespaces under seccomp; the files a
 * document may load still load (pdfrender reads them), and the server and CLI say the sandbox state.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { chmod, mkdir, readFile, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeSandbox, launchIdentity } from '../src/engine/browser/browser-user.js';
import { createEngine, type Engine } from '../src/engine/engine.js';
import { maxFileBytes } from '../src/engine/pages/file-response.js';
import { parseRenderRequest } from '../src/request.js';
import { executablePath } from './support/browser.js';
import { browsersOf } from './support/chromium-processes.js';
import { pdfrender, startServe } from './support/cli.js';
import { folderWith, removeTempDirs, tempDir } from './support/files.js';
import { readPdf } from './support/pdf.js';

const asRoot = process.getuid?.() === 0;
let engine: Engine;

beforeAll(() => {
  engine = createEngine({
    executablePath,
    concurrency: 1,
    timeoutMs: 20_000,
    files: 'document-folder',
    network: { network: 'all', allowHosts: [] },
  });
});

afterAll(async () => {
  await engine.close();
  await removeTempDirs();
});

/** The fields of /proc/<pid>/status that show a sandboxed process. */
function statusOf(pid: number): { uid: number; seccomp: string; nspid: string[] } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'm').exec(status)?.[1]?.trim() ?? '';
  return { uid: Number(field('Uid').split(/\s+/)[0]), seccomp: field('Seccomp'), nspid: field('NSpid').split(/\s+/) };
}

/** The processes of process group `pgid` (a browser and everything it started; renderers' command lines do not name the profile). */
function groupOf(pgid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === pgid;
      } catch {
        return false; // gone while we looked
      }
    });
}

/** The --type of each process of browser `pid`'s group ('browser' for the browser and its wrapper script). */
function processTypes(pid: number): string[] {
  // Chromium rewrites its helpers' command lines (setproctitle): spaces, not NULs, between arguments.
  return groupOf(pid).map(
    (each) =>
      /--type=(\S+)/.exec(readFileSync(`/proc/${each}/cmdline`, 'utf8').replaceAll('\0', ' '))?.[1] ?? 'browser',
  );
}

describe('the browser sandbox', () => {
  it('runs the renderer of a real render in a pid namespace under seccomp, never as root', async () => {
    const folder = await folderWith({ 'doc.html': '' });
    const result = await engine.render(parseRenderRequest({ htmlContent: '<h1>Sandboxed render</h1>' }), {
      baseUrl: pathToFileURL(join(folder, 'doc.html')).href,
    });
    expect((await readPdf(result.pdf)).pages[0]!.text).toContain('Sandboxed render');

    // The pooled page keeps its renderer, so the process that printed the PDF is still there.
    const browsers = [...browsersOf(process.pid)];
    expect(browsers).toHaveLength(1);
    const [browserPid, profile] = browsers[0]!;
    // Chromium rewrites its helpers' command lines (setproctitle): spaces, not NULs, between arguments.
    const renderers = groupOf(browserPid).filter((pid) =>
      /(^|[\s\0])--type=renderer([\s\0]|$)/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8')),
    );
    expect(renderers.length).toBeGreaterThan(0);
    // A server's browser keeps the network service in a process of its own (EngineOptions.oneCaller).
    expect(new Set(processTypes(browserPid))).toEqual(
      new Set(['browser', 'zygote', 'renderer', 'gpu-process', 'utility']),
    );
    for (const pid of renderers) {
      const status = statusOf(pid);
      // 2: a seccomp-bpf filter; two NSpid entries: a pid namespace of its own (the namespace sandbox).
      expect(status.seccomp).toBe('2');
      expect(status.nspid.length).toBeGreaterThan(1);
      expect(status.uid).not.toBe(0);
    }
    if (asRoot) {
      expect(statusOf(browserPid).uid).not.toBe(0);
      // The profile is the browser user's to write, and still root's to remove (engine.close does).
      expect((await stat(profile)).uid).toBe(statusOf(browserPid).uid);
    }
    expect(await engine.sandbox()).toMatch(/^browser sandbox on \(Chromium runs as (user \S+|this user)\)$/);
  });

  it('runs the network service in the browser process for one caller (the CLI); the renderers keep their sandbox', async () => {
    const own = createEngine({ executablePath, concurrency: 1, timeoutMs: 20_000, oneCaller: true });
    try {
      const result = await own.render(parseRenderRequest({ htmlContent: '<h1>One caller</h1>' }));
      expect((await readPdf(result.pdf)).pages[0]!.text).toContain('One caller');
      const ours = [...browsersOf(process.pid)]
        .map(([pid]) => pid)
        .filter((pid) => !processTypes(pid).includes('utility'));
      expect(ours).toHaveLength(1); // the server-like engine's browser above still has its utility process
      expect(new Set(processTypes(ours[0]!))).toEqual(new Set(['browser', 'zygote', 'renderer', 'gpu-process']));
      const renderers = groupOf(ours[0]!).filter((pid) =>
        /--type=renderer/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8')),
      );
      expect(renderers.length).toBeGreaterThan(0);
      for (const pid of renderers) expect(statusOf(pid).seccomp).toBe('2');
    } finally {
      await own.close();
    }
  });

  it("loads the files of a folder only its owner may read (pdfrender reads them for the browser's user)", async () => {
    const folder = await folderWith({
      'doc.html': '',
      'style.css': 'body::after { content: "Text from the stylesheet"; }',
    });
    await chmod(folder, 0o700);
    const baseUrl = pathToFileURL(join(folder, 'doc.html')).href;
    const html = '<link rel="stylesheet" href="style.css"><link rel="stylesheet" href="missing.css"><p>Body</p>';
    const result = await engine.render(parseRenderRequest({ htmlContent: html }), { baseUrl });
    expect((await readPdf(result.pdf)).pages[0]!.text).toContain('Text from the stylesheet');
    expect(result.network.failed).toEqual([
      { url: pathToFileURL(join(folder, 'missing.css')).href, code: 'LOAD_FAILED', reason: 'no such file' },
    ]);
  });

  it('hands over regular files only, and none too large, without hanging on a FIFO', async () => {
    const folder = await folderWith({ 'doc.html': '' });
    await mkdir(join(folder, 'folder'));
    expect(spawnSync('mkfifo', [join(folder, 'fifo')]).status).toBe(0);
    await writeFile(join(folder, 'huge.png'), '');
    await truncate(join(folder, 'huge.png'), maxFileBytes + 1); // sparse: no disk used
    const html = '<img src="fifo"><img src="folder"><img src="huge.png"><p>Still printed</p>';
    const result = await engine.render(parseRenderRequest({ htmlContent: html }), {
      baseUrl: pathToFileURL(join(folder, 'doc.html')).href,
    });
    expect((await readPdf(result.pdf)).pages[0]!.text).toContain('Still printed');
    const reasons = Object.fromEntries(
      result.network.failed.map(({ url, reason }) => [url.slice(url.lastIndexOf('/') + 1), reason]),
    );
    expect(reasons).toEqual({
      fifo: 'not a regular file',
      folder: 'a folder, not a file',
      'huge.png': 'larger than 100 MiB',
    });
  });

  it.runIf(asRoot)('as root picks an unprivileged user and setpriv; as anyone else Chromium sandboxes itself', () => {
    const identity = launchIdentity(0);
    expect(identity.user?.uid).toBeGreaterThan(0);
    expect(identity.setpriv).toMatch(/setpriv$/);
    expect(launchIdentity(1000)).toEqual({});
    expect(describeSandbox({ noSandbox: 'no user namespaces' })).toBe(
      'browser sandbox OFF (Chromium runs as this user): no user namespaces',
    );
  });
});

describe.runIf(asRoot)("root's own temp folder", () => {
  it("prints where the browser's user may not write (Chromium's temp files go to its profile)", async () => {
    const folder = await tempDir();
    await chmod(folder, 0o755); // passable, not writable, by the browser's user
    await writeFile(join(folder, 'page.html'), '<p>Printed past a root-only TMPDIR</p>');
    const run = await pdfrender(['render', join(folder, 'page.html'), '-o', join(folder, 'page.pdf')], {
      env: { TMPDIR: folder },
    });
    expect(run.code, run.stderr).toBe(0);
    expect((await readPdf(await readFile(join(folder, 'page.pdf')))).pages[0]!.text).toContain(
      'Printed past a root-only TMPDIR',
    );
  });

  it("is refused by name where the browser's user cannot reach it, instead of 'Target closed'", async () => {
    const folder = await tempDir(); // mode 0700
    await writeFile(join(folder, 'page.html'), '<p>x</p>');
    const run = await pdfrender(['render', join(folder, 'page.html'), '-o', join(folder, 'page.pdf')], {
      env: { TMPDIR: folder },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `who cannot reach the temp folder ${folder} (${folder} is mode 700) for its profile: set TMPDIR`,
    );
    expect(readdirSync(folder)).toEqual(['page.html']);
  });
});

// Docker's default seccomp profile refuses user namespaces; test/support/no-userns.py makes that fault.
const canRefuseUserNamespaces =
  process.arch === 'x64' && spawnSync('python3', ['--version'], { stdio: 'ignore' }).status === 0;

describe.runIf(asRoot && canRefuseUserNamespaces)('where user namespaces are refused', () => {
  it('still renders, as the unprivileged user without a sandbox, and says so', async () => {
    const folder = await tempDir();
    const input = join(folder, 'page.html');
    await writeFile(input, '<p>No namespaces here</p>');
    const output = join(folder, 'page.pdf');
    const run = await pdfrender(['--debug', 'render', input, '-o', output], {
      wrapper: ['python3', join(import.meta.dirname, 'support/no-userns.py')],
    });
    expect(run.stderr).toMatch(
      /pdfrender: \S+, browser sandbox OFF \(Chromium runs as user \S+\): Chromium could not start its sandbox as user \S+ \(user namespaces are refused here/,
    );
    expect(run.code).toBe(0);
    expect((await readPdf(await readFile(output))).pages[0]!.text).toContain('No namespaces here');
  });
});

describe('the sandbox state is said', () => {
  it('by render --debug', async () => {
    const folder = await tempDir();
    const input = join(folder, 'page.html');
    await writeFile(input, '<p>Debug line</p>');
    const run = await pdfrender(['--debug', 'render', input, '-o', join(folder, 'page.pdf')]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/pdfrender: \S+, browser sandbox on \(Chromium runs as (user \S+|this user)\)/);
  });

  it("in the server's start-up line", async () => {
    const server = await startServe(['--data-dir', await tempDir()]);
    try {
      expect(server.stderr()).toMatch(
        /listening on http:\/\/\S+ \(.*; browser sandbox on \(Chromium runs as (user \S+|this user)\)\)\n/,
      );
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });
});
