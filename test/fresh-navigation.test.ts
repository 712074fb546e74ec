/**
 * A pooled page whose last document ran script gets a fresh window for the next one: the old
 * document must be gone, with everything it stored, before any script of the new one runs. The
 * attacker writes every store it can reach every millisecond, from a timer, a worker and its
 * pagehide and beforeunload handlers, so a wipe done too early (before the old document is gone) or
 * too late (after the new document's first script), or a step of it skipped, is seen by the victim
 * that follows it on the same page, which prints what it finds. At an http origin (which file:
 * lacks: cookies, service workers) a second attacker writes each store the page's storage clearing
 * must reach, once, awaited, and the next document at that origin must find every one empty.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../src/engine/engine.js';
import { renderFile } from '../src/engine/render-file.js';
import { executablePath } from './support/browser.js';
import { folderWith, removeTempDirs } from './support/files.js';
import { readPdf } from './support/pdf.js';

let engine: Engine;
// An engine whose documents may reach loopback, for documents at an http origin (stores file: lacks).
let webEngine: Engine;
let site: Server;
let siteUrl: string;

beforeAll(async () => {
  // One page, so every document follows the one before it there; as the CLI renders.
  engine = createEngine({ executablePath, concurrency: 1, timeoutMs: 20_000, files: 'document-folder' });
  webEngine = createEngine({
    executablePath,
    concurrency: 1,
    timeoutMs: 20_000,
    network: { network: 'public', allowHosts: ['127.0.0.1'] },
  });
  site = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    const body = path === '/sw.js' ? serviceWorker : path === '/attacker.html' ? storeAttacker : storeVictim(path);
    response.writeHead(200, { 'content-type': path.endsWith('.js') ? 'text/javascript' : 'text/html' });
    response.end(body);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await Promise.all([engine.close(), webEngine.close()]);
  await new Promise((resolve) => site.close(resolve));
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

// Every store of the origin the page clears by type (what Storage.clearDataForOrigin is asked for):
// each write awaited, and what could not be written said as such, so the test sees which it exercised.
// Shared storage cannot be read back by a document (only by its worklets), so it is written, not probed.
const storeAttacker = `<p id="wrote"></p><script>
  const wrote = [];
  const attempt = async (name, write) => { try { await write(); wrote.push(name); } catch (error) { wrote.push(name + ':' + error.name); } };
  const opened = (request) => new Promise((resolve, reject) => {
    request.onupgradeneeded = () => request.result.createObjectStore('s');
    request.onsuccess = () => { request.result.close(); resolve(); };
    request.onerror = () => reject(request.error);
  });
  Promise.all([
    attempt('cookie', () => { document.cookie = 'leak=attacker; max-age=3600; path=/'; if (!document.cookie) throw new TypeError(); }),
    attempt('local', () => localStorage.setItem('k', 'attacker')),
    attempt('idb', () => opened(indexedDB.open('leak-db'))),
    attempt('caches', () => caches.open('leak-cache').then((cache) => cache.put('/leak', new Response('attacker')))),
    attempt('opfs', async () => (await navigator.storage.getDirectory()).getFileHandle('leak-file', { create: true })),
    attempt('bucket', async () => {
      const bucket = await navigator.storageBuckets.open('leak-bucket');
      await opened(bucket.indexedDB.open('leak-in-bucket'));
      await bucket.caches.open('leak-in-bucket');
    }),
    attempt('sw', async () => { await navigator.serviceWorker.register('/sw.js'); await navigator.serviceWorker.ready; }),
    attempt('persist', async () => { if (!(await navigator.storage.persist())) throw new TypeError(); }),
    attempt('shared', () => window.sharedStorage.set('k', 'attacker')),
  ]).then(() => { document.getElementById('wrote').textContent = 'WROTE ' + wrote.join(' '); window.done = true; });
</script>`;

// A worker that, if it outlived the attacker's render, would answer the next document at its origin
// (with a page that says so at once, rather than one the render waits on until its deadline).
const serviceWorker = `
  self.addEventListener('install', () => self.skipWaiting());
  self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
  self.addEventListener('fetch', (event) => event.respondWith(new Response('<h1>HIJACKED</h1><script>window.probed = true;</script>', { headers: { 'content-type': 'text/html' } })));
`;

// What a later document at the same origin finds in each of those stores.
const storeVictim = (path: string) => `<h1>VICTIM ${path}</h1><p id="found"></p><script>
  const read = async (name, get) => { try { return name + '=[' + (await get()) + ']'; } catch (error) { return name + '=' + error.name; } };
  Promise.all([
    read('COOKIE', () => document.cookie),
    read('LOCAL', () => localStorage.getItem('k')),
    read('IDB', async () => (await indexedDB.databases()).map((database) => database.name)),
    read('CACHES', () => caches.keys()),
    read('OPFS', async () => { const names = []; for await (const name of (await navigator.storage.getDirectory()).keys()) names.push(name); return names; }),
    read('BUCKETS', () => navigator.storageBuckets.keys()),
    read('SW', async () => (await navigator.serviceWorker.getRegistrations()).length + (navigator.serviceWorker.controller ? ' controlled' : '')),
    read('PERSISTED', () => navigator.storage.persisted()),
  ]).then((found) => { document.getElementById('found').textContent = found.join(' '); window.probed = true; });
</script>`;

async function urlTextOf(path: string, fields = {}): Promise<string> {
  const result = await webEngine.render({ url: `${siteUrl}${path}`, ...fields });
  return (await readPdf(result.pdf)).pages
    .map((page) => page.text)
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
}

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

  it('at an http origin: cookies, storage, databases, caches, files, buckets and a service worker are all gone', async () => {
    for (const n of [1, 2]) {
      const wrote = await urlTextOf('/attacker.html', { waitForExpression: 'window.done === true' });
      // Every store the clearing must reach was written (shared storage and persistence are up to Chromium's settings).
      for (const store of ['cookie', 'local', 'idb', 'caches', 'opfs', 'bucket', 'sw'])
        expect(wrote).toMatch(new RegExp(`\\b${store}(\\s|$)`));
      const printed = await urlTextOf(`/victim-${n}.html`, { waitForExpression: 'window.probed === true' });
      expect(printed).toContain(`VICTIM /victim-${n}.html`);
      // Without spaces: the PDF's text may break the line anywhere. A named storage bucket outlives a
      // clearing by DevTools' storage types unless it is 'all' (the bucket's own record goes only
      // when every quota client was cleared, background fetch's too, which has no type name).
      expect(printed.replace(/\s+/g, '')).toContain(
        'COOKIE=[]LOCAL=[null]IDB=[]CACHES=[]OPFS=[]BUCKETS=[]SW=[0]PERSISTED=[false]',
      );
    }
  });
});
