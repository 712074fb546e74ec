/**
 * Faults around `pdfrender render`, through the built CLI as child processes: a batch whose
 * document hits its deadline never ends with an unhandled error, and the deadline the user asked
 * for is the one that applies, however long (no puppeteer protocol timeout, no timer overflow, cuts it short).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../src/engine/launch.js';
import { executablePath } from './support/browser.js';
import { pdfrender } from './support/cli.js';
import { folderWith, removeTempDirs } from './support/files.js';
import { readPdf } from './support/pdf.js';

afterAll(removeTempDirs);

describe('a batch whose document hits its deadline', () => {
  // Killing the browser at the end of the run, with the page of the timed-out document still being
  // closed, left a message on the DevTools pipe unread; the reset pipe then raised an error nobody
  // listened to (`Error: read ECONNRESET` after the summary, exit 1 either way). Before the fix it
  // came in 2 of 8 runs as reported, 3 of 12 and 2 of 20 here: 20 runs miss it about once in 100.
  it('never ends with an unhandled error', async () => {
    const docs = await folderWith({ 'loop.html': '<script>while(true){}</script>', 'fine.html': '<p>fine</p>' });
    for (let run = 0; run < 20; run++) {
      const result = await pdfrender(['render', join(docs, 'loop.html'), join(docs, 'fine.html'), '--out-dir', join(docs, 'out'), '--timeout', '1s']);
      expect(result.stderr).not.toMatch(/ECONNRESET|Unhandled|node:events/);
      expect(result.stderr).toMatch(/loop\.html: the document did not finish rendering within the 1 s deadline/);
      expect(result.stderr).toMatch(/1 of 2 PDFs rendered/);
      expect(result.code).toBe(1);
    }
    expect((await readPdf(await readFile(join(docs, 'out', 'fine.pdf')))).pages[0]!.text).toContain('fine');
  }, 240_000);
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
    const result = await pdfrender(['render', join(docs, 'page.html'), '-o', join(docs, 'page.pdf'), '--timeout', '30d']);
    expect(result.stderr).not.toMatch(/deadline|TimeoutOverflowWarning/);
    expect(result.code).toBe(0);
    expect((await readPdf(await readFile(join(docs, 'page.pdf')))).pages[0]!.text).toContain('patient');
  });
});
