/**
 * The CLI's early start: a Chromium started before pdfrender has loaded is the browser the launch
 * then connects to, when the launch asks for the same binary, flags and user; otherwise it is killed
 * and its profile removed. A run that ends before it renders leaves no browser and no profile.
 */
import { existsSync, readdirSync } from 'node:fs';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnEarlyBrowser } from '../src/engine/browser/browser-process.js';
import { launchIdentity } from '../src/engine/browser/browser-user.js';
import { createEngine } from '../src/engine/engine.js';
import { launchBrowser } from '../src/engine/browser/launch.js';
import { profilePrefix } from '../src/engine/browser/profile-owner.js';
import { engineBrowserFlags } from '../src/engine/browser/engine-flags.js';
import { reserveProxyPort } from '../src/network/proxy-port.js';
import { executablePath } from './support/browser.js';
import { browsersOf, onlyBrowserOf, remainingAfter } from './support/chromium-processes.js';
import { pdfrender } from './support/cli.js';
import { removeTempDirs, tempDir } from './support/files.js';
import { readPdf } from './support/pdf.js';

afterAll(removeTempDirs);

describe('a browser started early', () => {
  it('is the one the launch connects to when it asks for the same binary, flags and user', async () => {
    const flags = ['--lang=en-US'];
    spawnEarlyBrowser(executablePath, flags, launchIdentity());
    const early = await onlyBrowserOf(process.pid);
    expect(early).toBeDefined();
    const launched = await launchBrowser(executablePath, flags);
    try {
      expect(launched.pid).toBe(early!.pid);
      expect(launched.profileDir).toBe(early!.profile);
      expect(browsersOf(process.pid).size).toBe(1);
      const page = await (await launched.browser.createBrowserContext()).newPage();
      // Printed over DevTools directly: puppeteer's setContent and pdf() evaluate in the page through
      // the Runtime domain, which pdfrender's connection keeps off (unneeded-commands.ts).
      await page.goto('data:text/html,<p>early</p>');
      const { data } = await (await page.createCDPSession()).send('Page.printToPDF');
      expect((await readPdf(Buffer.from(data, 'base64'))).pages[0]!.text).toContain('early');
    } finally {
      await launched.close(true);
    }
  });

  it("is the one the CLI's engine launches: the early start asks for the engine's own flags", async () => {
    // Were they to differ, every cold render would start a second browser (the early one is then
    // discarded, which is safe but slow).
    spawnEarlyBrowser(executablePath, engineBrowserFlags(await reserveProxyPort()), launchIdentity());
    const early = await onlyBrowserOf(process.pid);
    expect(early).toBeDefined();
    const engine = createEngine({
      executablePath,
      concurrency: 1,
      files: 'document-folder',
      network: { network: 'all', allowHosts: [] },
    });
    try {
      await engine.start();
      expect([...browsersOf(process.pid).keys()]).toEqual([early!.pid]);
    } finally {
      await engine.close({ kill: true });
    }
  });

  it('is killed, its profile removed, when the launch asks for other flags', async () => {
    spawnEarlyBrowser(executablePath, ['--lang=de'], launchIdentity());
    const early = await onlyBrowserOf(process.pid);
    expect(early).toBeDefined();
    const launched = await launchBrowser(executablePath, ['--lang=fr']);
    try {
      expect(launched.pid).not.toBe(early!.pid);
      expect(await remainingAfter(early!.profile, 5_000)).toEqual([]);
      expect(existsSync(early!.profile)).toBe(false);
    } finally {
      await launched.close(true);
    }
  });
});

describe('pdfrender render', () => {
  it('leaves no browser and no profile when it ends before rendering (a missing input)', async () => {
    const tmp = await tempDir();
    await chmod(tmp, 0o1777); // a temp folder like /tmp: the browser user keeps its profile and print files here
    const run = await pdfrender(['render', join(tmp, 'missing.html'), '-o', join(tmp, 'missing.pdf')], {
      env: { TMPDIR: tmp },
    });
    expect(run.code).toBe(2);
    expect(readdirSync(tmp).filter((name) => name.startsWith(profilePrefix))).toEqual([]);
  });

  it('starts no browser for a missing input or an -o it cannot write: one line, exit 2', async () => {
    const tmp = await tempDir();
    await chmod(tmp, 0o1777);
    // A browser that leaves a mark when it starts, then is the real one.
    const marker = join(tmp, 'started');
    const chrome = join(tmp, 'chrome.sh');
    await writeFile(chrome, `#!/bin/sh\ntouch '${marker}'\nexec '${executablePath}' "$@"\n`);
    await chmod(chrome, 0o755);
    await writeFile(join(tmp, 'page.html'), '<p>written</p>');
    const render = (input: string, output: string) =>
      pdfrender(['render', input, '-o', output, '--chrome', chrome], { env: { TMPDIR: tmp } });
    const missing = await render(join(tmp, 'missing.html'), join(tmp, 'missing.pdf'));
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim().split('\n')).toEqual([expect.stringContaining(join(tmp, 'missing.html'))]);
    const proc = await render(join(tmp, 'page.html'), '/proc/x.pdf');
    expect(proc.code).toBe(2);
    expect(proc.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^pdfrender: cannot write \/proc\/x\.pdf: /),
    ]);
    expect(existsSync(marker)).toBe(false);
    // A run that can render still starts its browser.
    const rendered = await render(join(tmp, 'page.html'), join(tmp, 'page.pdf'));
    expect(rendered.code).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });

  it('renders with the early browser and removes its profile', async () => {
    const tmp = await tempDir();
    await chmod(tmp, 0o1777);
    await writeFile(join(tmp, 'page.html'), '<p>rendered early</p>');
    const run = await pdfrender(['render', join(tmp, 'page.html'), '-o', join(tmp, 'page.pdf')], {
      env: { TMPDIR: tmp },
    });
    expect(run.code).toBe(0);
    expect((await readPdf(await readFile(join(tmp, 'page.pdf')))).pages[0]!.text).toContain('rendered early');
    expect(readdirSync(tmp).filter((name) => name.startsWith(profilePrefix))).toEqual([]);
  });
});
