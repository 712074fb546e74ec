/**
 * Server: render-sync latency and throughput at several concurrencies under autocannon, then
 * render-async throughput from the first enqueue to the last webhook, all on one `pdfrender serve`
 * on loopback; beside them the raw reference loop's time per document for the same request,
 * measured before and after the server cases so both see the same machine.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { asyncLoad } from '../lib/async-load.mjs';
import { invoiceRequest, requestAsFiles } from '../lib/documents.mjs';
import { syncLoad } from '../lib/load.mjs';
import { startPeakSampler } from '../lib/process-tree.mjs';
import { runProcess } from '../lib/run-process.mjs';
import { addWebhook, startServer, startWebhookReceiver } from '../lib/server-process.mjs';
import { median } from '../lib/stats.mjs';

/** Documents the raw loop renders before its times count: its first pages pay for start-up. */
const rawWarmUp = 3;

/** Per-document times (ms) of the raw reused-page loop at concurrency 1 on `count` copies of the request. */
async function rawPerDocument({ root, work, request, count }) {
  const dir = join(work, 'raw-request');
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(dir, 'out'), { recursive: true });
  const { inputs, footer } = await requestAsFiles(request, dir, count + rawWarmUp);
  const args = [join(root, 'bench/raw-loop.mjs'), '--mode', 'reused', '--concurrency', '1', '--timings', '--out-dir', join(dir, 'out'), '--footer', footer];
  const run = await runProcess(process.execPath, [...args, '--margin-top', request.marginTop, '--margin-bottom', request.marginBottom, ...inputs]);
  return JSON.parse(run.stdout.trim().split('\n').pop()).perDocMs.slice(rawWarmUp);
}

/** Run `work` while sampling the peak RSS of the server's process tree; resolves to its result plus peakRssKb. */
async function withPeakRss(pid, work) {
  const sampler = startPeakSampler(pid);
  const result = await work();
  return { ...result, peakRssKb: sampler.stop() };
}

/**
 * `levels` maps a concurrency to the number of requests sent at it. Resolves to
 * { rawPerDocMs, rawSamples, sync: [{ connections, ...syncLoad result, peakRssKb }], async: {...} }.
 */
export async function serverCases({ root, work, levels, asyncJobs, rawDocs, log }) {
  const request = await invoiceRequest(root);
  log(`server: raw reference loop, ${rawDocs} documents at concurrency 1`);
  const rawSamples = await rawPerDocument({ root, work, request, count: rawDocs });

  const dataDir = await mkdtemp(join(work, 'serve-'));
  const receiver = await startWebhookReceiver();
  addWebhook({ root, dataDir, url: receiver.url });
  const server = await startServer({ root, dataDir });
  const syncUrl = `${server.url}/api/pdfs/render-sync`;
  const sync = [];
  let asyncResult;
  try {
    // Warm-up: the engine opens its pages on first use; the raw loop's warm-up documents are left out likewise.
    await syncLoad({ url: syncUrl, body: request, connections: 4, requests: 8 });
    for (const [connections, requests] of levels) {
      log(`server: render-sync, ${requests} requests over ${connections} connection(s)`);
      sync.push({ connections, ...(await withPeakRss(server.pid, () => syncLoad({ url: syncUrl, body: request, connections, requests }))) });
    }

    log(`server: render-async, ${asyncJobs} jobs`);
    asyncResult = await withPeakRss(server.pid, () => asyncLoad({ url: server.url, receiver, request, jobs: asyncJobs }));
  } finally {
    await server.stop();
    await receiver.close();
    await rm(dataDir, { recursive: true, force: true });
  }

  log('server: raw reference loop again');
  rawSamples.push(...(await rawPerDocument({ root, work, request, count: rawDocs })));
  return { rawPerDocMs: median(rawSamples), rawSamples: rawSamples.map(Math.round), sync, async: asyncResult };
}
