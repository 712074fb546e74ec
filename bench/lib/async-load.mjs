/**
 * render-async throughput: `jobs` requests queued one after another, timed from the first enqueue
 * to the last webhook the receiver got (server-process.mjs startWebhookReceiver).
 */

/**
 * Queue `jobs` copies of `request` (identifiers `<prefix>-<i>`) at `url`/api/pdfs/render-async and wait
 * for their webhooks. Resolves to { jobs, refused, failed, enqueueSeconds, seconds, perSecond }.
 */
export async function asyncLoad({ url, receiver, request, jobs, prefix = 'bench' }) {
  const allDelivered = receiver.waitFor(receiver.received + jobs);
  const failedBefore = receiver.failed;
  const started = performance.now();
  let refused = 0;
  for (let i = 0; i < jobs; i += 1) {
    const response = await fetch(`${url}/api/pdfs/render-async`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...request, identifier: `${prefix}-${i}` }),
    });
    await response.arrayBuffer();
    if (response.status !== 202) refused += 1;
  }
  const enqueuedMs = performance.now() - started;
  // A refused job never sends a webhook: then the time is up to the last enqueue, and the refusals are reported.
  const last = refused === 0 ? await allDelivered : performance.now();
  const seconds = (last - started) / 1000;
  return {
    jobs,
    refused,
    failed: receiver.failed - failedBefore,
    enqueueSeconds: enqueuedMs / 1000,
    seconds,
    perSecond: jobs / seconds,
  };
}
