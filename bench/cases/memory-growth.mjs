/**
 * Memory growth: a fresh `pdfrender serve` renders the invoice through render-sync, and its
 * process tree (server and Chromium) is read after the first `early` renders and again after
 * `late`. Each reading is taken once the load has stopped and the tree has had a second to
 * settle, so both are at rest and comparable.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { invoiceRequest } from '../lib/documents.mjs';
import { syncLoad } from '../lib/load.mjs';
import { treeMemory } from '../lib/process-tree.mjs';
import { startServer } from '../lib/server-process.mjs';

/** Resolves to { early, late, connections, atEarly: {rssKb, pssKb, processes}, atLate: {...}, errors }. */
export async function memoryGrowth({ root, work, early, late, connections, log }) {
  const request = await invoiceRequest(root);
  const dataDir = await mkdtemp(join(work, 'serve-memory-'));
  const server = await startServer({ root, dataDir });
  const url = `${server.url}/api/pdfs/render-sync`;
  try {
    log(`memory: ${early} renders, reading, then up to ${late}`);
    const first = await syncLoad({ url, body: request, connections, requests: early });
    await sleep(1000);
    const atEarly = treeMemory(server.pid);
    const second = await syncLoad({ url, body: request, connections, requests: late - early });
    await sleep(1000);
    const atLate = treeMemory(server.pid);
    return { early, late, connections, atEarly, atLate, errors: first.errors + second.errors };
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
