/**
 * When the engine reads fontconfig's coverage (fc-list, 75 to 90 ms of CPU) for the report's missing
 * glyphs: ahead, while the document renders, only for a request whose HTML may draw a character
 * beyond ASCII; never for an all-ASCII one (most documents, and a cold one-page render's sixth),
 * which still gets its missing glyphs reported when its script draws one, read after the print.
 * fc-list is seen through a stand-in on PATH that notes each call and runs the real one.
 */
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../src/engine/engine.js';
import { executablePath } from './support/browser.js';
import { removeTempDirs, tempDir } from './support/files.js';

let calls: string;
const path = process.env.PATH;

beforeAll(async () => {
  const bin = await tempDir();
  calls = join(bin, 'calls');
  await writeFile(calls, '');
  // It runs the real fc-list on the PATH as it was, without itself.
  await writeFile(join(bin, 'fc-list'), `#!/bin/sh\necho called >> '${calls}'\nPATH='${path}' exec fc-list "$@"\n`);
  await chmod(join(bin, 'fc-list'), 0o755);
  process.env.PATH = `${bin}:${path}`;
});

afterAll(async () => {
  process.env.PATH = path;
  await removeTempDirs();
});

const fcListCalls = async () => (await readFile(calls, 'utf8')).split('\n').filter(Boolean).length;

describe("fontconfig's coverage", () => {
  it('is not read for an all-ASCII document, and is read (once) for one beyond ASCII', async () => {
    const engine = createEngine({ executablePath, concurrency: 1 });
    try {
      const before = await fcListCalls();
      const plain = await engine.render({ htmlContent: '<h1>Invoice 42</h1><p>Total: 10 EUR</p>', tagged: false });
      expect(plain.report.missingGlyphs).toEqual([]);
      expect(await fcListCalls()).toBe(before);
      // A private-use character: no font has it, so it is reported as a missing glyph.
      const icon = await engine.render({ htmlContent: '<p>An icon: \ue000</p>', tagged: false });
      expect(icon.report.missingGlyphs.map((glyph) => glyph.script)).toEqual(['Private use']);
      expect(await fcListCalls()).toBe(before + 1);
    } finally {
      await engine.close();
    }
  });

  it('is still read, after the print, for an all-ASCII document whose script draws a character beyond it', async () => {
    const engine = createEngine({ executablePath, concurrency: 1 });
    try {
      const before = await fcListCalls();
      const drawn = await engine.render({
        htmlContent: `<p id="icon"></p><script>document.getElementById('icon').textContent = 'icon \\ue000';</script>`,
        tagged: false,
      });
      expect(drawn.report.missingGlyphs.map((glyph) => glyph.script)).toEqual(['Private use']);
      expect(await fcListCalls()).toBe(before + 1);
    } finally {
      await engine.close();
    }
  });
});
