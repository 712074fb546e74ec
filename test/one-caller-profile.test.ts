/**
 * The CLI's browser (EngineOptions.oneCaller) keeps its default profile in memory: Chromium writes
 * none of that profile's databases into the profile folder, so there is little for pdfrender to
 * remove at exit, and a document's storage (in its page's browser context, in memory for every
 * browser) works as before. A server's browser keeps its default profile on disk.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../src/engine/engine.js';
import { parseRenderRequest } from '../src/request.js';
import { executablePath } from './support/browser.js';
import { browsersOf } from './support/chromium-processes.js';
import { folderWith, removeTempDirs } from './support/files.js';
import { readPdf } from './support/pdf.js';

/** A document that writes localStorage and IndexedDB, and prints what localStorage gave back. */
const storingDocument = `<body><p id="out">not stored</p><script>
  localStorage.setItem('note', 'Stored for the run');
  indexedDB.open('notes').onsuccess = () => undefined;
  document.getElementById('out').textContent = localStorage.getItem('note');
</script></body>`;

/** Some of what the headless shell's default profile creates on disk as it starts. */
const profileDatabases = [
  join('Default', 'Local Storage'),
  join('Default', 'shared_proto_db'),
  join('Default', 'Code Cache'),
  join('Default', 'Shared Dictionary'),
];

let engine: Engine | undefined;

afterEach(async () => {
  await engine?.close();
  engine = undefined;
});

afterAll(() => removeTempDirs());

/** Render the storing document with a fresh engine; the files of its browser's profile folder, relative to it. */
async function profileAfterRender(oneCaller: boolean): Promise<{ text: string; files: string[] }> {
  engine = createEngine({ executablePath, concurrency: 1, timeoutMs: 20_000, oneCaller });
  // From a folder: a document of its own origin (file:), which has storage.
  const folder = await folderWith({ 'doc.html': '' });
  const result = await engine.render(parseRenderRequest({ htmlContent: storingDocument }), {
    baseUrl: pathToFileURL(join(folder, 'doc.html')).href,
  });
  const browsers = [...browsersOf(process.pid).values()];
  expect(browsers).toHaveLength(1);
  const profile = browsers[0]!;
  const files = readdirSync(profile, { recursive: true, encoding: 'utf8' }).map((file) =>
    relative(profile, join(profile, file)),
  );
  return { text: (await readPdf(result.pdf)).pages[0]!.text, files };
}

describe("the CLI's browser profile", () => {
  it('stays in memory for one caller: storage works, and no database reaches the folder', async () => {
    const { text, files } = await profileAfterRender(true);
    expect(text).toContain('Stored for the run');
    expect(files).toContain('pdfrender-owner.json');
    // None of the default profile's databases and caches (as root the folder is also the browser
    // user's home, where other programs may write: only Chromium's own are looked for).
    for (const database of profileDatabases) expect(files).not.toContain(database);
  });

  it("is on disk for a server's browser: the default profile's databases the check above looks for", async () => {
    const { text, files } = await profileAfterRender(false);
    expect(text).toContain('Stored for the run');
    for (const database of profileDatabases) expect(files).toContain(database);
  });
});
