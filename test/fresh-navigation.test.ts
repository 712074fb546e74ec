/**
 * A pooled page whose last document ran script gets a fresh window for the next one: the old
 * document must be gone, with everything it stored, before any script of the new one runs. The
 * attacker writes every store it can reach every millisecond, from a timer, a worker and its
 * pagehide and beforeunload handlers, so a wipe done too early (before the old document is gone) or
 * too late (after the new document's first script), or a step of it skipped, is seen by the victim
 * that follows it on the same page, which prints what it finds.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../src/engine/engine.js';
import { renderFile } from '../src/engine/render-file.js';
import { executablePath } from './support/browser.js';
import { folderWith, removeTempDirs } from './support/files.js';
import { readPdf } from './support/pdf.js';

let engine: Engine;

beforeAll(() => {
  // One page, so every document follows the one before it there; as the CLI renders.
  engine = createEngine({ executablePath, concurrency: 1, timeoutMs: 20_000, files: 'document-folder' });
});

afterAll(async () => {
  await engine.close();
  await removeTempDirs();
});

// Every store a document can write, written by `who`.
const writeAll = (who: string) => `
  try { localStorage.setItem('k', '${who}'); } catch {}
  try { sessionStorage.setItem('k', '${who}'); } catch {}
  try { self.name = '${who}'; } catch {}
  try { const open = indexedDB.open('leak-${who}'); open.onupgradeneeded = () => open.result.createObjectStore('s'); } catch {}
  try { caches.open('leak-${who}'); } catch {}
`;

const attacker = `<p>attacker</p><script>
  window.leak = 'global';
  history.replaceState({}, '', location.href);
  setInterval(() => { ${writeAll('timer')} }, 1);
  const worker = new Worker(URL.createObjectURL(new Blob([\`setInterval(() => { ${writeAll('worker').replace(/`/g, '\\`')} }, 1);\`])));
  addEventListener('pagehide', () => { ${writeAll('pagehide')} });
  addEventListener('beforeunload', () => { ${writeAll('beforeunload')} });
</script>`;

// What the victim finds, printed once IndexedDB has answered which databases there are.
const victim = (marker: string) => `<h1>${marker}</h1><p id="probe"></p><script>
  const found = 'LOCAL=[' + localStorage.getItem('k') + '] SESSION=[' + sessionStorage.getItem('k') + '] NAME=[' + window.name +
    '] GLOBAL=[' + window.leak + '] HISTORY=' + history.length + ' FRAMES=' + frames.length + ' URL=' + location.href;
  Promise.all([indexedDB.databases(), caches.keys()]).then(([databases, cacheNames]) => {
    document.getElementById('probe').textContent = found + ' IDB=[' + databases.map((d) => d.name).join(',') + '] CACHES=[' + cacheNames.join(',') + ']';
    window.probed = true;
  });
</script>`;

async function textOf(path: string, fields = {}): Promise<string> {
  const result = await renderFile(engine, path, fields);
  return (await readPdf(result.pdf)).pages.map((page) => page.text).join(' ');
}

describe('a document that ran script leaves nothing for the next one on its page', () => {
  it('what it stored from a timer, a worker and its unload handlers, its globals and its history are gone', async () => {
    const dir = await folderWith({
      'attacker.html': attacker,
      ...Object.fromEntries([1, 2, 3].map((n) => [`victim-${n}.html`, victim(`VICTIM-${n}`)])),
    });
    const folder = `${pathToFileURL(dir).href}/`;
    for (const n of [1, 2, 3]) {
      // The attacker runs for a while (its writes land at every moment), then a victim follows.
      await textOf(join(dir, 'attacker.html'), { waitDelay: 50 + n * 20 });
      const printed = (await textOf(join(dir, `victim-${n}.html`), { waitForExpression: 'window.probed === true' }))
        .replace(/\s+/g, ' ')
        .trim();
      expect(printed).toContain(`VICTIM-${n}`);
      expect(printed).toContain(
        `LOCAL=[null] SESSION=[null] NAME=[] GLOBAL=[undefined] HISTORY=1 FRAMES=0 URL=${folder} IDB=[] CACHES=[]`,
      );
    }
  });

  it('a document that runs no script, after an attacker, leaves its window wiped for the next document', async () => {
    const dir = await folderWith({
      'attacker.html': attacker,
      'plain.html': '<h1>PLAIN</h1><p>no script here</p>',
      'victim.html': victim('VICTIM-AFTER-PLAIN'),
    });
    const folder = `${pathToFileURL(dir).href}/`;
    await textOf(join(dir, 'attacker.html'), { waitDelay: 50 });
    expect((await textOf(join(dir, 'plain.html'))).replace(/\s+/g, ' ').trim()).toBe('PLAIN no script here');
    // Written into the plain document's window, which kept its window.name and sessionStorage: nothing of the attacker's there.
    const printed = (await textOf(join(dir, 'victim.html'), { waitForExpression: 'window.probed === true' }))
      .replace(/\s+/g, ' ')
      .trim();
    expect(printed).toContain(
      `LOCAL=[null] SESSION=[null] NAME=[] GLOBAL=[undefined] HISTORY=1 FRAMES=0 URL=${folder} IDB=[] CACHES=[]`,
    );
  });
});
