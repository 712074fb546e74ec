/** render-async end to end: a webhook receiver registered, the job queued, its PDF fetched from the webhook's URL. */
import { expect } from 'vitest';
import { receiver, waitForArrivals } from './receiver.js';
import { postJson, type TestServer } from './server.js';

/** Queue `body` on `server`'s render-async, wait for its PDF_RENDERED webhook, and fetch the PDF it names. */
export async function renderAsyncPdf(server: TestServer, body: Record<string, unknown>): Promise<Uint8Array> {
  const hook = await receiver();
  try {
    await postJson(server, '/api/webhooks', { url: hook.url });
    const queued = await postJson(server, '/api/pdfs/render-async', body);
    expect(queued.status, await queued.clone().text()).toBe(202);
    const [arrival] = await waitForArrivals(hook, 1, 30_000);
    const event = JSON.parse(arrival!.body) as { type: string; payload: { url: string } };
    expect(event.type, arrival!.body).toBe('PDF_RENDERED');
    return new Uint8Array(await (await fetch(event.payload.url)).arrayBuffer());
  } finally {
    hook.close();
  }
}
