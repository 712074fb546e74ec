/**
 * Isolation on pooled pages across storage partitions (issue 27 §4). A document loaded from a `url`
 * that embeds a third-party frame stores data in that frame's partition (keyed by the frame's
 * origin and the top-level site): localStorage, IndexedDB, Cache Storage, and a service worker it
 * registers. Clearing storage by origin misses partitioned keys, so a later caller's page on the
 * same site, embedding the same third party, read all four and had its requests answered by the
 * planted worker. Two loopback addresses are two sites here: 127.0.0.1 the top-level one,
 * 127.0.0.2 the third party. One page in the pool, so the second render reuses the first's page.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTempDirs } from './support/files.js';
import { readPdf } from './support/pdf.js';
import { startServer, type TestServer } from './support/server.js';

// The third party's pages: one stores in every kind of storage and registers a worker, one reports what it finds.
const plant = `<p id="out">planting</p><script>
  const done = (text) => { document.getElementById('out').textContent = text; parent.postMessage('done', '*'); };
  (async () => {
    localStorage.setItem('k', 'planted');
    await new Promise((resolve, reject) => {
      const open = indexedDB.open('planted-db', 1);
      open.onupgradeneeded = () => open.result.createObjectStore('s').put('planted', 'k');
      open.onsuccess = () => { open.result.close(); resolve(); };
      open.onerror = () => reject(open.error);
    });
    await (await caches.open('planted-cache')).put('/cached', new Response('planted'));
    const registration = await navigator.serviceWorker.register('/sw.js');
    await navigator.serviceWorker.ready;
    done('PLANTED ' + (registration.active || registration.installing || registration.waiting ? 'with a worker' : 'no worker'));
  })().catch((error) => done('PLANT FAILED ' + error));
</script>`;
const probe = `<p id="out">probing</p><script>
  const done = (text) => { document.getElementById('out').textContent = text; parent.postMessage('done', '*'); };
  (async () => {
    const idb = (await indexedDB.databases()).map((d) => d.name).join(',');
    const cache = (await caches.keys()).join(',');
    const workers = (await navigator.serviceWorker.getRegistrations()).length;
    const fetched = await (await fetch('/sw-check')).text();
    done('LS=[' + localStorage.getItem('k') + '] IDB=[' + idb + '] CACHE=[' + cache + '] WORKERS=[' + workers + '] FETCH=[' + fetched + ']');
  })().catch((error) => done('PROBE FAILED ' + error));
</script>`;
// The planted worker answers /sw-check itself; the network answers NETWORK.
const worker = `self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (event) => {
  if (event.request.url.endsWith('/sw-check')) event.respondWith(new Response('SW-PLANTED'));
});`;
// The top-level site's pages embed the third party and are done when it says so.
const top = (frame: string) =>
  `<h1>TOP</h1><iframe style="width: 600px; height: 80px" src="${frame}"></iframe><script>addEventListener('message', () => { window.thirdPartyDone = true; });</script>`;

let site: Server;
let port: number;
let server: TestServer;

beforeAll(async () => {
  site = createServer((req, res) => {
    const third = `http://127.0.0.2:${port}`;
    const pages: Record<string, [string, string]> = {
      '/plant-top.html': ['text/html', top(`${third}/plant.html`)],
      '/probe-top.html': ['text/html', top(`${third}/probe.html`)],
      // The same pages as documents of their own, at the top-level site: first-party storage and worker.
      '/plant-first.html': ['text/html', `${plant}${top('about:blank').replace(/^.*<script>/, '<script>')}`],
      '/probe-first.html': ['text/html', `${probe}${top('about:blank').replace(/^.*<script>/, '<script>')}`],
      '/plant.html': ['text/html', plant],
      '/probe.html': ['text/html', probe],
      '/sw.js': ['text/javascript', worker],
      '/sw-check': ['text/plain', 'NETWORK'],
    };
    const page = pages[req.url ?? ''];
    if (!page) return void res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': page[0], 'Cache-Control': 'no-store' }).end(page[1]);
  });
  // Every loopback address, so 127.0.0.1 and 127.0.0.2 reach it as two sites.
  await new Promise<void>((resolve) => site.listen(0, '0.0.0.0', resolve));
  port = (site.address() as AddressInfo).port;
  server = await startServer({ concurrency: 1, allowPrivateNetwork: true, timeout: '15s', rateLimit: 1000 });
});

afterAll(async () => {
  await server.close();
  site.close();
  await removeTempDirs();
});

/** Render the top-level page `path` as a later caller would, and the PDF's text. */
async function render(path: string): Promise<string> {
  const response = await fetch(`${server.url}/api/pdfs/render-sync.pdf`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      url: `http://127.0.0.1:${port}${path}`,
      waitForExpression: 'window.thirdPartyDone === true',
    }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return (await readPdf(new Uint8Array(await response.arrayBuffer()))).pages.map((page) => page.text).join(' ');
}

describe('a third-party frame of one document', () => {
  it('leaves nothing in its partition for the next document on the same site: storage, caches, databases, workers', async () => {
    expect(await render('/plant-top.html')).toContain('PLANTED with a worker');
    const found = await render('/probe-top.html');
    expect(found).toContain('LS=[null] IDB=[] CACHE=[] WORKERS=[0] FETCH=[NETWORK]');
  });

  it("and a document's own storage and worker at the top-level site are gone too", async () => {
    expect(await render('/plant-first.html')).toContain('PLANTED with a worker');
    expect(await render('/probe-first.html')).toContain('LS=[null] IDB=[] CACHE=[] WORKERS=[0] FETCH=[NETWORK]');
  });
});
