/**
 * A document brings its own fonts (issue 28 §1): an `@font-face` whose file sits beside the
 * document, for the CLI, and one given as a data: URL, for the server, are what the text is drawn
 * with. The check is the font embedded in the PDF: had the web font not loaded, the text would be
 * drawn with the default font. The font file is one of this machine's (fontconfig's monospace, not
 * the default sans-serif), loaded under a family name of the document's own.
 */
import { execFileSync } from 'node:child_process';
import { copyFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pdfrender } from './support/cli.js';
import { folderWith, removeTempDirs } from './support/files.js';
import { readGlyphs } from './support/pdf.js';
import { startServer } from './support/server.js';

afterAll(removeTempDirs);

const [fontFile, postscriptName] = execFileSync('fc-match', ['--format=%{file}|%{postscriptname}', 'monospace'], {
  encoding: 'utf8',
}).split('|') as [string, string];

const document = (src: string) =>
  `<style>@font-face { font-family: "Brought"; src: url("${src}"); } p { font-family: "Brought", sans-serif; }</style><p>Drawn with the document's own font</p>`;

/** The fonts that drew the PDF's text, by their PostScript names without the subset prefix. */
const fontsOf = async (pdf: Uint8Array) => (await readGlyphs(pdf)).map((font) => font.name.replace(/^[A-Z]{6}\+/, ''));

describe("a document's own fonts", () => {
  it('for the CLI: a font file beside the document', async () => {
    const dir = await folderWith({ 'letter.html': document('brought.ttf') });
    await copyFile(fontFile, join(dir, 'brought.ttf'));
    const run = await pdfrender(['render', 'letter.html', '-o', 'letter.pdf'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(await fontsOf(await readFile(join(dir, 'letter.pdf')))).toContain(postscriptName);
    // Shown failing: a file that is not there leaves the text to the default font.
    const missing = await folderWith({ 'letter.html': document('missing.ttf') });
    expect((await pdfrender(['render', 'letter.html', '-o', 'letter.pdf'], { cwd: missing })).code).toBe(0);
    expect(await fontsOf(await readFile(join(missing, 'letter.pdf')))).not.toContain(postscriptName);
  });

  it('for the server: a font as a data: URL', async () => {
    const server = await startServer();
    try {
      const data = `data:font/ttf;base64,${(await readFile(fontFile)).toString('base64')}`;
      const response = await fetch(`${server.url}/api/pdfs/render-sync.pdf`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ htmlContent: document(data) }),
      });
      expect(response.status).toBe(200);
      expect(await fontsOf(new Uint8Array(await response.arrayBuffer()))).toContain(postscriptName);
    } finally {
      await server.close();
    }
  });
});
