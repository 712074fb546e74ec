/**
 * Server: render-sync latency and throughput at several concurrencies under autocannon, then
 * render-async throughput from the first enqueue to the last webhook against render-sync at its
 * best level, in alternating rounds (one sample of each would make the comparison a coin toss on a
 * shared machine, and the best of three sync levels against one async run favours sync), with the
 * CPU each mode costs per document; all on one `pdfrender serve` on loopback. Beside them the raw
 * reference loop's time per document for the same request, measured before and after the server
 * cases so both see the same machine.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { asyncLoad } from '../lib/async-load.mjs';
import { invoiceRequest, requestAsFiles } from '../lib/documents.mjs';
import { syncLoad } from '../lib/load.mjs';
import { alternate } from '../lib/alternate.mjs';
import { startPeakSampler, treeCpuMs } from '../lib/process-tree.mjs';
import { runProcess } from '../lib/run-process.mjs';
import { addWebhook, startServer, startWebhookReceiver } from '../lib/server-process.mjs';
import { median, medianBy } from '../lib/stats.mjs';

/** Documents the raw loop renders before its times count: its first pages pay for start-up. */
const rawWarmUp = 3;

/** Per-document times (ms) of the raw reused-page loop at concurrency 1 on `count` copies of the request. */
async function rawPerDocument({ root, work, request, count }) {
  const dir = join(work, 'raw-request');
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(dir, 'out'), { recursive: true });
  const { inputs, footer } = await requestAsFiles(request, dir, count + rawWarmUp);
  const args = [
    join(root, 'bench/raw-loop.mjs'),
    '--mode',
    'reused',
    '--concurrency',
    '1',
    '--timings',
    '--out-dir',
    join(dir, 'out'),
    '--footer',
    footer,
  ];
  const run = await runProcess(process.execPath, [
    ...args,
    '--margin-top',
    request.marginTop,
    '--margin-bottom',
    request.marginBottom,
    ...inputs,
  ]);
  return JSON.parse(run.stdout.trim().split('\n').pop()).perDocMs.slice(rawWarmUp);
}

/**
 * Run `work` (which renders `docs` documents) while sampling the peak RSS of the server's process
 * tree; resolves to its result plus peakRssKb and the CPU time per document of the server's own
 * process and of its Chromium.
 */
async function measured(pid, docs, work) {
  const sampler = startPeakSampler(pid);
  const before = treeCpuMs(pid);
  const result = await work();
  const after = treeCpuMs(pid);
  return {
    ...result,
    ms: result.seconds * 1000,
    peakRssKb: sampler.stop(),
    cpuMsPerDoc: { pdfrender: (after.own - before.own) / docs, chromium: (after.rest - before.rest) / docs },
  };
}

/**
 * `levels` maps a concurrency to the number of requests sent at it. Resolves to { rawPerDocMs,
 * rawSamples, sync: [{ connections, ...syncLoad result, peakRssKb, cpuMsPerDoc }], async: (the
 * median async round), asyncVsSync: { connections, rounds, async: [runs], sync: [runs] } }.
 */
export async function serverCases({ root, work, levels, asyncJobs, asyncRounds, rawDocs, log }) {
  const request = await invoiceRequest(root);
  log(`server: raw reference loop, ${rawDocs} documents at concurrency 1`);
  const rawSamples = await rawPerDocument({ root, work, request, count: rawDocs });

  const dataDir = await mkdtemp(join(work, 'serve-'));
  const receiver = await startWebhookReceiver();
  addWebhook({ root, dataDir, url: receiver.url });
  const server = await startServer({ root, dataDir });
  const syncUrl = `${server.url}/api/pdfs/render-sync`;
  const sync = [];
  let asyncVsSync;
  try {
    // Warm-up: the engine opens its pages on first use; the raw loop's warm-up documents are left out likewise.
    await syncLoad({ url: syncUrl, body: request, connections: 4, requests: 8 });
    for (const [connections, requests] of levels) {
      log(`server: render-sync, ${requests} requests over ${connections} connection(s)`);
      sync.push({
        connections,
        ...(await measured(server.pid, requests, () =>
          syncLoad({ url: syncUrl, body: request, connections, requests }),
        )),
      });
    }

    const { connections } = sync.reduce((best, s) => (s.perSecond > best.perSecond ? s : best));
    log(
      `server: render-async against render-sync at ${connections} connections, ${asyncJobs} documents each, ${asyncRounds} rounds`,
    );
    const runs = await alternate(
      {
        'render-async': (round) =>
          measured(server.pid, asyncJobs, () =>
            asyncLoad({ url: server.url, receiver, request, jobs: asyncJobs, prefix: `round${round}` }),
          ),
        'render-sync': () =>
          measured(server.pid, asyncJobs, () =>
            syncLoad({ url: syncUrl, body: request, connections, requests: asyncJobs }),
          ),
      },
      asyncRounds,
      log,
    );
    for (const [name, { error }] of Object.entries(runs)) if (error) throw new Error(`${name}: ${error}`);
    asyncVsSync = {
      connections,
      rounds: asyncRounds,
      async: runs['render-async'].runs,
      sync: runs['render-sync'].runs,
    };
  } finally {
    await server.stop();
    await receiver.close();
    await rm(dataDir, { recursive: true, force: true });
  }

  log('server: raw reference loop again');
  rawSamples.push(...(await rawPerDocument({ root, work, request, count: rawDocs })));
  return {
    rawPerDocMs: median(rawSamples),
    rawSamples: rawSamples.map(Math.round),
    sync,
    async: medianBy(asyncVsSync.async, (run) => run.perSecond),
    asyncVsSync,
  };
}
