/**
 * HTTP load against render-sync with autocannon (a real load generator: keep-alive connections,
 * each sending its next request as soon as the last is answered), with every response's latency
 * kept so p95 can be reported (autocannon's own summary stops at p90 and p97.5).
 */
import autocannon from 'autocannon';
import { percentile } from './stats.mjs';

/**
 * Send `requests` POSTs of `body` to `url` over `connections` connections, asking for the PDF itself.
 * Resolves to { requests, ok, errors, seconds, perSecond, p50, p95, p99 } (latencies in ms; errors
 * counts non-2xx answers, connection errors and timeouts).
 */
export async function syncLoad({ url, body, connections, requests }) {
  const latencies = [];
  let lastResponseAt;
  const started = performance.now();
  const instance = autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/pdf' },
    body: JSON.stringify(body),
    connections,
    amount: requests,
    timeout: 120, // seconds: a slow render is a figure, not an error
  });
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    lastResponseAt = performance.now();
  });
  const result = await instance;
  // Timed to the last response: autocannon only notices it is done on its next whole-second tick.
  const seconds = ((lastResponseAt ?? performance.now()) - started) / 1000;
  return {
    requests,
    ok: latencies.length,
    // autocannon's `errors` already counts timeouts.
    errors: result.non2xx + result.errors,
    seconds,
    perSecond: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
  };
}
