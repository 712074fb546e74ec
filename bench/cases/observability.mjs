/**
 * What operating a server costs its renders: render-sync throughput and CPU per document on a server
 * with metrics served and scraped every second (Prometheus' default is every 15 s or more) and traces
 * exported to a local OTLP receiver, beside the same server with neither, in alternating rounds.
 * Both servers run at once (each with its own browser), so a slow spell of the machine lands on both.
 * The server "off" still counts into its registry (the instruments are always there; only serving
 * and scraping them, and tracing, are what an operator turns on).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { alternate } from '../lib/alternate.mjs';
import { invoiceRequest } from '../lib/documents.mjs';
import { syncLoad } from '../lib/load.mjs';
import { treeCpuMs } from '../lib/process-tree.mjs';
import { startServer } from '../lib/server-process.mjs';

/** An OTLP/HTTP receiver that accepts every export and counts its bytes. */
async function startOtlpSink() {
  let bytes = 0;
  const server = createServer((req, res) => {
    req.on('data', (chunk) => (bytes += chunk.length));
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    get bytes() {
      return bytes;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/**
 * `requests` render-sync requests over `connections` connections per round, `rounds` rounds of each
 * server. Resolves to { connections, requests, rounds, off: [runs], on: [runs], scrapes, exportedBytes }.
 */
export async function observabilityCases({ root, work, connections, requests, rounds, log }) {
  const request = await invoiceRequest(root);
  const sink = await startOtlpSink();
  const dirs = [await mkdtemp(join(work, 'serve-off-')), await mkdtemp(join(work, 'serve-on-'))];
  const off = await startServer({ root, dataDir: dirs[0] });
  const on = await startServer({
    root,
    dataDir: dirs[1],
    flags: ['--metrics'],
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_SERVICE_NAME: 'pdfrender-bench' },
  });
  let scrapes = 0;
  const scraper = setInterval(() => {
    fetch(`${on.url}/metrics`)
      .then(async (response) => {
        // Only a real exposition counts: a server that stopped serving metrics must not pass for one.
        if (response.ok && (await response.text()).includes('pdfrender_renders_total')) scrapes += 1;
      })
      .catch(() => undefined);
  }, 1000);
  try {
    const round = (server) => async () => {
      const before = treeCpuMs(server.pid);
      const result = await syncLoad({
        url: `${server.url}/api/pdfs/render-sync`,
        body: request,
        connections,
        requests,
      });
      const after = treeCpuMs(server.pid);
      return {
        ...result,
        ms: result.seconds * 1000,
        cpuMsPerDoc: {
          pdfrender: (after.own - before.own) / requests,
          chromium: (after.rest - before.rest) / requests,
        },
      };
    };
    // Warm-up: each engine opens its pages on first use.
    for (const server of [off, on])
      await syncLoad({ url: `${server.url}/api/pdfs/render-sync`, body: request, connections, requests: 8 });
    log(`observability: render-sync, ${requests} requests over ${connections} connections, ${rounds} rounds each`);
    const runs = await alternate(
      { 'metrics and traces off': round(off), 'metrics scraped every second, traces exported': round(on) },
      rounds,
      log,
    );
    for (const [name, { error }] of Object.entries(runs)) if (error) throw new Error(`${name}: ${error}`);
    return {
      connections,
      requests,
      rounds,
      off: runs['metrics and traces off'].runs,
      on: runs['metrics scraped every second, traces exported'].runs,
      scrapes,
      exportedBytes: sink.bytes,
    };
  } finally {
    clearInterval(scraper);
    await Promise.all([off.stop(), on.stop()]);
    await sink.close();
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  }
}
