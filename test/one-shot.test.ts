/**
 * A one-shot run's last document (RenderOptions.final): `pdfrender render` does not reset the page
 * after the last document it renders (the browser is killed right after), but still resets it
 * between the documents of a batch; read from the DevTools commands the built CLI sends (puppeteer's
 * protocol log) and from the PDFs. On the library's engine, a final render's page is closed, never
 * handed to another document nor left running.
 */
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { processTree } from '../bench/lib/process-tree.mjs';
import { createEngine } from '../src/engine/engine.js';
import { executablePath } from './support/browser.js';
import { pdfrender } from './support/cli.js';
import { folderWith, removeTempDirs, tempDir } from './support/files.js';
import { readPdf } from './support/pdf.js';

afterAll(removeTempDirs);

/** The DevTools commands a CLI run sent, in order, from its protocol log on standard error. */
function commandsSent(stderr: string): string[] {
  return stderr
    .split(/\n(?=\S+ puppeteer:protocol:)/)
    .filter((entry) => entry.includes('puppeteer:protocol:SEND'))
    .map((entry) => /"method":"([\w.]+)"/.exec(entry)?.[1] ?? '?');
}

// What a page's reset sends, whichever way it goes (an empty document, or a fresh window): every reset
// ends by clearing the cookies, and a navigation or storage wipe may come before.
const resetCommands = ['Network.clearBrowserCookies', 'Storage.clearDataForOrigin', 'Page.navigate'];

/** The reset commands sent after each print, up to the next print or the end of the run. */
function resetsAfterPrints(commands: string[]): string[][] {
  const after: string[][] = [];
  for (const command of commands) {
    if (command === 'Page.printToPDF') after.push([]);
    else if (resetCommands.includes(command)) after.at(-1)?.push(command);
  }
  return after;
}

const letter = (name: string) => `<!doctype html><title>${name}</title><p>Letter for ${name}</p>`;

async function run(args: string[], cwd: string) {
  const result = await pdfrender(['render', ...args, '-q', '--no-tagged'], {
    cwd,
    env: { DEBUG: 'puppeteer:protocol:SEND*' },
  });
  expect(result.code, result.stderr.slice(-500)).toBe(0);
  return commandsSent(result.stderr);
}

describe('pdfrender render, one shot', () => {
  it('does not reset the page after its only document', async () => {
    const dir = await folderWith({ 'ada.html': letter('Ada') });
    const commands = await run(['ada.html'], dir);
    expect(resetsAfterPrints(commands)).toEqual([[]]);
    expect((await readPdf(await readFile(join(dir, 'ada.pdf')))).pages[0]!.text).toContain('Letter for Ada');
  });

  it("wipes nothing before a new page's first document, whose browser context is new: only after a document", async () => {
    const dir = await tempDir();
    // Script in each: the second document gets a fresh window, with every wipe, and finds nothing
    // of the first.
    const stores = (name: string) =>
      `<!doctype html><p>Letter for ${name}</p><p id="found"></p><script>
        document.getElementById('found').textContent = 'found: ' + [localStorage.getItem('seen'), sessionStorage.getItem('seen'), window.name, document.cookie].filter(Boolean).join(',');
        localStorage.setItem('seen', '${name}'); sessionStorage.setItem('seen', '${name}'); window.name = '${name}'; document.cookie = 'seen=${name}';
      </script>`;
    for (const name of ['Ada', 'Grace']) await writeFile(join(dir, `${name}.html`), stores(name));
    const commands = await run(['Ada.html', 'Grace.html', '--out-dir', 'out', '--concurrency', '1'], dir);
    const firstPrint = commands.indexOf('Page.printToPDF');
    const beforeFirst = commands.slice(0, firstPrint);
    // The first window: navigated to and its history reset, nothing cleared.
    expect(beforeFirst).toContain('Page.navigate');
    expect(beforeFirst).toContain('Page.resetNavigationHistory');
    expect(beforeFirst).not.toContain('Storage.clearDataForOrigin');
    expect(beforeFirst).not.toContain('Network.clearBrowserCookies');
    // After the first document, which ran script: a fresh window with its storage and cookies wiped.
    expect(resetsAfterPrints(commands)[0]).toEqual([
      'Page.navigate',
      'Storage.clearDataForOrigin',
      'Network.clearBrowserCookies',
    ]);
    for (const name of ['Ada', 'Grace']) {
      const text = (await readPdf(await readFile(join(dir, 'out', `${name}.pdf`)))).pages[0]!.text;
      expect(text).toContain(`Letter for ${name}`);
      expect(text).toMatch(/found:\s*$/m);
      expect(text).not.toContain('Ada,');
    }
  });

  it('resets the page between the documents of a batch, and reuses it, but not after the last', async () => {
    const dir = await tempDir();
    const names = ['Ada', 'Grace', 'Linus'];
    for (const name of names) await writeFile(join(dir, `${name}.html`), letter(name));
    const commands = await run([...names.map((name) => `${name}.html`), '--out-dir', 'out', '--concurrency', '1'], dir);
    // One page for all three: each document left it reset for the next, none was closed.
    expect(commands.filter((command) => command === 'Target.createTarget')).toHaveLength(1);
    const resets = resetsAfterPrints(commands);
    expect(resets).toHaveLength(3);
    expect(resets[0]).toContain('Network.clearBrowserCookies');
    expect(resets[1]).toContain('Network.clearBrowserCookies');
    expect(resets[2]).toEqual([]);
    for (const name of names) {
      const { pages } = await readPdf(await readFile(join(dir, 'out', `${name}.pdf`)));
      expect(pages.map((page) => page.text).join(' ')).toContain(`Letter for ${name}`);
      for (const other of names.filter((candidate) => candidate !== name))
        expect(pages[0]!.text).not.toContain(`Letter for ${other}`);
    }
  });
});

describe('the engine, a final render', () => {
  it('closes its page: the next document gets a clean page, and final renders leave no page open', async () => {
    const engine = createEngine({ executablePath, concurrency: 1, files: 'document-folder' });
    try {
      const dir = await tempDir();
      const baseUrl = `${pathToFileURL(dir).href}/`;
      const leaves = `<p>left</p><script>localStorage.setItem('left', 'yes'); document.cookie = 'left=yes'; setInterval(() => {}, 1);</script>`;
      const reads = `<p id="out"></p><script>document.getElementById('out').textContent = 'stored: ' + (localStorage.getItem('left') ?? 'none') + ' cookie: ' + (document.cookie || 'none');</script>`;
      for (let render = 0; render < 6; render += 1)
        await engine.render({ htmlContent: leaves, tagged: false }, { baseUrl, final: true });
      const next = await engine.render({ htmlContent: reads, tagged: false }, { baseUrl });
      expect((await readPdf(next.pdf)).pages[0]!.text).toContain('stored: none cookie: none');
      // A library caller may say final on every render: each page is closed, not kept running its
      // timers until close() (six would be six renderers). The last render's page is the one left.
      await expect.poll(() => renderers(), { timeout: 10_000, interval: 100 }).toBeLessThanOrEqual(1);
    } finally {
      await engine.close();
    }
  });
});

// Chromium renderer processes under this test's process.
function renderers(): number {
  return processTree(process.pid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('--type=renderer');
    } catch {
      return false;
    }
  }).length;
}
