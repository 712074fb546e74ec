/**
 * The Store contract, second part, against both backends: webhook deliveries (the per-endpoint cap
 * of a claim, holds, the retry schedule and Retry-After, the failed-only log), endpoints (add,
 * rotate, disable and enable with their held deliveries, remove), redelivery, rate windows, the
 * file index, and blobs where the backend has them.
 */
import { afterAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { isPdfRenderError } from '../src/errors.js';
import { maxRetryAfterMs, retrySchedule } from '../src/store/delivery-retry.js';
import { s3Blobs } from '../src/store/files/s3-blobs.js';
import type { Blobs, Delivery, Store } from '../src/store/contract.js';
import { everyOwner } from '../src/store/owners.js';
import { enqueueInput } from './support/enqueue-input.js';
import { removeTempDirs } from './support/files.js';
import { s3rverCredentials, startS3 } from './support/s3.js';
import { backends, stopPostgres, type Opened } from './support/store-backends.js';

afterAll(async () => {
  await stopPostgres();
  await removeTempDirs();
});

describe.each(backends)('$name store: webhooks, rate windows, files', (backend) => {
  let opened: Opened;
  let store: Store;
  beforeEach(async () => {
    opened = await backend.open();
    store = opened.store;
    return () => opened.close();
  });

  const row = async (id: number) =>
    (
      await opened.sql<Record<string, unknown>>(
        'SELECT status, attempts, next_attempt_at, claimed_until, last_status, last_error FROM webhook_deliveries WHERE id = ?',
        id,
      )
    )[0];
  const insertDelivery = (eventId: string, endpointId: string, dueAt: number) =>
    opened.sql(
      "INSERT INTO webhook_deliveries (event_id, job_id, endpoint_id, body, status, next_attempt_at, created_at) VALUES (?, 'job', ?, '{}', 'pending', ?, 0)",
      eventId,
      endpointId,
      dueAt,
    );
  const twoEndpoints = async () => ({
    slow: await store.webhooks.add('http://127.0.0.1:9/slow', 1),
    fast: await store.webhooks.add('http://127.0.0.1:9/fast', 2),
  });

  it('claims at most `perEndpoint` per endpoint, counting those in flight, in due order, and holds them for a lease of `leaseMs`', async () => {
    const { slow, fast } = await twoEndpoints();
    for (let i = 0; i < 10; i += 1) await insertDelivery(`e${i}`, slow.id, i);
    for (let i = 0; i < 10; i += 1) await insertDelivery(`f${i}`, fast.id, 100 + i);
    const first = await store.deliveries.claim(1_000, 32, 5_000, 4, {});
    expect(first.map((d) => [d.endpointId, d.eventId])).toEqual([
      ...['e0', 'e1', 'e2', 'e3'].map((e) => [slow.id, e]),
      ...['f0', 'f1', 'f2', 'f3'].map((e) => [fast.id, e]),
    ]);
    expect(first[0]).toEqual({
      id: first[0]!.id,
      eventId: 'e0',
      jobId: 'job',
      endpointId: slow.id,
      body: '{}',
      attempts: 0,
      createdAt: 0,
      traceContext: null,
    });
    // Three of the fast endpoint's attempts settle: it has one in flight, the slow one still four.
    for (const delivery of first.filter((d) => ['f0', 'f1', 'f2'].includes(d.eventId)))
      await store.deliveries.succeeded(delivery.id, 200, 1_000);
    const second = await store.deliveries.claim(1_000, 32, 5_000, 4, { [slow.id]: 4, [fast.id]: 1 });
    expect(second.map((d) => d.eventId)).toEqual(['f4', 'f5', 'f6']);
    expect(await row(first[0]!.id)).toMatchObject({ next_attempt_at: 6_000, claimed_until: 6_000 });
    // Held for 5 s: not claimed again before then, by anyone.
    expect((await store.deliveries.claim(5_999, 32, 5_000)).map((d) => d.eventId)).toEqual([
      'e4',
      'e5',
      'e6',
      'e7',
      'e8',
      'e9',
      'f7',
      'f8',
      'f9',
    ]);
  });

  it('renews the leases of attempts in flight; one whose lease ran out (its sender died) is due again and no longer counts against its endpoint', async () => {
    const { slow } = await twoEndpoints();
    for (let i = 0; i < 4; i += 1) await insertDelivery(`l${i}`, slow.id, i);
    const claimed = await store.deliveries.claim(1_000, 10, 3_000, 4, {});
    expect(claimed.map((d) => d.eventId)).toEqual(['l0', 'l1', 'l2', 'l3']);
    const [renewed, settled, ...abandoned] = claimed as [Delivery, Delivery, ...Delivery[]];
    await store.deliveries.succeeded(settled.id, 200, 2_000);
    // A settled attempt is not renewed: only those still in flight are.
    expect(await store.deliveries.renew([renewed.id, settled.id], 7_000)).toBe(1);
    expect(await row(renewed.id)).toMatchObject({ next_attempt_at: 7_000, claimed_until: 7_000 });
    expect(await row(settled.id)).toMatchObject({ status: 'delivered', claimed_until: null });
    // Past their lease, the two never renewed are claimed again, beside the renewed one still in flight.
    expect((await store.deliveries.claim(4_500, 10, 3_000, 4, { [slow.id]: 1 })).map((d) => d.eventId)).toEqual(
      abandoned.map((d) => d.eventId),
    );
  });

  it('schedules retries (5 s give or take 10%, or a longer Retry-After up to 10 h) and fails a delivery after its last attempt', async () => {
    await twoEndpoints();
    await store.deliveries.queueEvent('job_1', { type: 'PDF_RENDERED' }, 0);
    const [a, b] = await store.deliveries.claim(0, 10, 20_000);
    await store.deliveries.failed(a!, 500, 'the receiver answered 500', 1_000);
    const scheduled = (await row(a!.id))!;
    expect(scheduled).toMatchObject({
      status: 'pending',
      attempts: 1,
      claimed_until: null,
      last_status: 500,
      last_error: 'the receiver answered 500',
    });
    expect(scheduled.next_attempt_at).toBeGreaterThanOrEqual(1_000 + 4_500);
    expect(scheduled.next_attempt_at).toBeLessThanOrEqual(1_000 + 5_500);
    await store.deliveries.failed(b!, 503, 'the receiver answered 503', 1_000, 30 * 86_400_000);
    expect(await row(b!.id)).toMatchObject({ next_attempt_at: 1_000 + maxRetryAfterMs });
    // The attempt after the schedule's last step is the last.
    for (let attempt = 1; attempt <= retrySchedule.length; attempt += 1)
      await store.deliveries.failed({ ...a!, attempts: attempt }, 500, `failure ${attempt}`, 2_000);
    expect(await row(a!.id)).toMatchObject({
      status: 'failed',
      attempts: retrySchedule.length + 1,
      last_error: `failure ${retrySchedule.length}`,
    });
    expect((await store.deliveries.log(10, true)).map((entry) => [entry.id, entry.nextAttemptAt])).toEqual([
      [a!.id, null],
    ]);
  });

  it('holds a delivery while its endpoint is disabled, and makes it due now when the endpoint was enabled meanwhile', async () => {
    const { slow, fast } = await twoEndpoints();
    await insertDelivery('e-slow', slow.id, 0);
    await insertDelivery('e-fast', fast.id, 0);
    const [onSlow, onFast] = (await store.deliveries.claim(1_000, 32, 5_000, 4, {})).map((d) => d.id);
    await store.webhooks.disable(slow.id, 1_500);
    await store.deliveries.hold(onSlow!, 2_000, { status: 410, error: 'gone' });
    await store.deliveries.hold(onFast!, 2_000);
    expect(await row(onSlow!)).toMatchObject({ status: 'held', attempts: 1, claimed_until: null, last_status: 410 });
    expect(await row(onFast!)).toMatchObject({
      status: 'pending',
      attempts: 0,
      next_attempt_at: 2_000,
      claimed_until: null,
    });
  });

  it('adds, rotates, lists, disables, enables (releasing what it held) and removes endpoints', async () => {
    const added = await store.webhooks.add('https://example.com/hook', 1000);
    expect(added).toMatchObject({ url: 'https://example.com/hook', createdAt: 1000, disabledAt: null });
    expect(added.id).toMatch(/^wh_[\w-]{12}$/);
    expect(added.key).toMatch(/^whk_[0-9a-f]{64}$/);
    expect(await store.webhooks.list()).toEqual([{ ...added, held: 0 }]);
    expect(await store.webhooks.any()).toBe(true);
    for (const bad of ['ftp://example.com/x', 'not a url'])
      expect(isPdfRenderError(await store.webhooks.add(bad, 1).catch((e) => e), 'VALIDATION_FAILED')).toBe(true);
    const rotated = (await store.webhooks.rotate(added.id, { key: true, secret: false }))!;
    expect(rotated).toMatchObject({ id: added.id, secret: added.secret });
    expect(rotated.key).not.toBe(added.key);
    expect(await store.webhooks.rotate('wh_none', { key: true, secret: true })).toBeNull();
    expect(await store.webhooks.get(added.id)).toEqual(rotated);

    await store.deliveries.queueEvent('job_1', { n: 1 }, 2_000);
    await store.webhooks.disable(added.id, 3_000);
    await store.deliveries.queueEvent('job_2', { n: 2 }, 4_000);
    expect(await store.deliveries.claim(5_000, 10, 1_000)).toEqual([]);
    expect(await store.webhooks.list()).toEqual([{ ...rotated, disabledAt: 3_000, held: 2 }]);
    // Adding its URL again is the endpoint coming back: same id, key and secret, its events released in order.
    const back = await store.webhooks.addOrEnable('https://example.com/hook', 6_000);
    expect(back).toEqual({
      created: false,
      endpoint: { ...rotated, disabledAt: null },
      wasDisabled: true,
      released: 2,
    });
    const released = await store.deliveries.claim(6_000, 10, 1_000);
    expect(released.map((d) => JSON.parse(d.body))).toEqual([{ n: 1 }, { n: 2 }]);
    for (const delivery of released) await store.deliveries.succeeded(delivery.id, 200, 6_500);
    expect(await store.webhooks.enable(added.id, 7_000)).toMatchObject({ wasDisabled: false, released: 0 });
    expect(await store.webhooks.addOrEnable('https://example.com/other', 7_000)).toMatchObject({
      created: true,
      url: 'https://example.com/other',
    });

    await store.deliveries.queueEvent('job_3', {}, 8_000);
    expect(await store.webhooks.remove(added.id, 8_000)).toEqual({ unsent: 1 });
    expect(await store.webhooks.remove(added.id, 8_000)).toBeNull();
    expect(
      (await store.deliveries.log(10)).filter((e) => e.jobId === 'job_3').map((e) => [e.url, e.status, e.lastError]),
    ).toEqual([
      ['https://example.com/other', 'pending', null],
      [null, 'failed', 'the endpoint was removed'],
    ]);
    expect((await store.webhooks.list()).map((e) => e.url)).toEqual(['https://example.com/other']);
  });

  it('redelivers settled deliveries, leaves one in flight alone, and sends a swept job only where it went', async () => {
    const { slow, fast } = await twoEndpoints();
    await store.deliveries.queueEvent('job_1', { type: 'PDF_RENDERED' }, 1_000);
    const [toSlow, toFast] = await store.deliveries.claim(1_000, 10, 20_000);
    await store.deliveries.succeeded(toFast!.id, 200, 1_100);
    expect(await store.redeliveries.redeliver('job_1', 2_000)).toEqual({
      outcome: 'done',
      queued: 1,
      created: 0,
      inFlight: 1,
      heldFor: [],
      active: 2,
    });
    expect(await row(toFast!.id)).toMatchObject({ status: 'pending', attempts: 0, next_attempt_at: 2_000 });
    expect((await store.deliveries.claim(2_000, 10, 20_000)).map((d) => d.id)).toEqual([toFast!.id]);
    await store.deliveries.succeeded(toSlow!.id, 200, 3_000);
    await store.deliveries.succeeded(toFast!.id, 200, 3_000);
    // job_1 has no row (swept, or never queued here): whose it was is not known, so an endpoint added
    // since does not get it; a disabled one keeps what it has.
    await store.webhooks.add('http://127.0.0.1:9/late', 3_500);
    await store.webhooks.disable(slow.id, 3_600);
    expect(await store.redeliveries.redeliver('job_1', 4_000)).toEqual({
      outcome: 'done',
      queued: 1,
      created: 0,
      inFlight: 0,
      heldFor: [],
      active: 1,
    });
    expect((await store.deliveries.claim(4_000, 10, 20_000)).map((d) => d.endpointId)).toEqual([fast.id]);
    expect(await store.redeliveries.redeliver('job_unknown', 5_000)).toEqual({ outcome: 'no-such-job' });
  });

  describe("owners (issue 27: a key owns its endpoints, its jobs' events and its files)", () => {
    const a = 'key:aaaa';
    const b = 'key:bbbb';
    /** A job of `caller`, finished: its event is queued as the store does when a job completes. */
    const finishedJob = async (caller: string) => {
      const job = await store.queue.enqueue(enqueueInput({ caller, now: 1_000 }));
      await store.queue.claim('w', 1_000, 60_000);
      expect(await store.queue.complete(job.id, 'w', 1_100, { fileId: 'f', pages: 1, bytes: 1 })).toBe(true);
      return job.id;
    };
    const deliveredTo = async (jobId: string) =>
      (
        await opened.sql<{ endpoint_id: string }>(
          'SELECT endpoint_id FROM webhook_deliveries WHERE job_id = ? ORDER BY id',
          jobId,
        )
      ).map((r) => r.endpoint_id);

    it("announces a key's job to its own endpoints and the global ones only; no key's job to no key's", async () => {
      const ofA = await store.webhooks.add('http://127.0.0.1:9/a', 1, a);
      const ofB = await store.webhooks.add('http://127.0.0.1:9/b', 2, b);
      const global = await store.webhooks.add('http://127.0.0.1:9/all', 3, everyOwner);
      const ofNoKey = await store.webhooks.add('http://127.0.0.1:9/none', 4);
      expect([ofA.owner, ofB.owner, global.owner, ofNoKey.owner]).toEqual([a, b, '*', '']);
      expect(await deliveredTo(await finishedJob(a))).toEqual([ofA.id, global.id]);
      expect(await deliveredTo(await finishedJob('ip:127.0.0.1'))).toEqual([global.id, ofNoKey.id]);
      // Failed for good: the same owners.
      const failing = await store.queue.enqueue(enqueueInput({ caller: b, now: 2_000, maxAttempts: 1 }));
      await store.queue.claim('w', 2_000, 60_000);
      await store.queue.fail(failing.id, 'w', 2_100, { code: 'RENDER_PDF_FAILED', message: 'no' }, 2_100);
      expect(await deliveredTo(failing.id)).toEqual([ofB.id, global.id]);
    });

    it("lets a viewer see and change only its own endpoints; another's is not there", async () => {
      const ofA = await store.webhooks.add('http://127.0.0.1:9/a', 1, a);
      const ofB = await store.webhooks.add('http://127.0.0.1:9/b', 2, b);
      expect((await store.webhooks.list(b)).map((e) => e.id)).toEqual([ofB.id]);
      expect((await store.webhooks.list()).map((e) => e.id)).toEqual([ofA.id, ofB.id]);
      expect(await store.webhooks.rotate(ofA.id, { key: true, secret: true }, b)).toBeNull();
      expect(await store.webhooks.enable(ofA.id, 5, b)).toBeNull();
      expect(await store.webhooks.remove(ofA.id, 5, b)).toBeNull();
      expect(await store.webhooks.get(ofA.id)).toMatchObject({ key: ofA.key, secret: ofA.secret });
      expect(await store.webhooks.rotate(ofA.id, { key: true, secret: false }, a)).toMatchObject({ id: ofA.id });
      expect(await store.webhooks.remove(ofA.id, 6, a)).toEqual({ unsent: 0 });
    });

    it('says whether a job of an owner would reach an endpoint, and gives an endpoint to another owner', async () => {
      const ofA = await store.webhooks.add('http://127.0.0.1:9/a', 1, a);
      expect([await store.webhooks.any(a), await store.webhooks.any(b), await store.webhooks.any()]).toEqual([
        true,
        false,
        true,
      ]);
      expect(await store.webhooks.assign(ofA.id, b)).toMatchObject({ id: ofA.id, owner: b });
      expect([await store.webhooks.any(a), await store.webhooks.any(b)]).toEqual([false, true]);
      await store.webhooks.add('http://127.0.0.1:9/all', 2, everyOwner);
      expect(await store.webhooks.any(a)).toBe(true);
      expect(await store.webhooks.assign('wh_none', a)).toBeNull();
    });

    it("enables a disabled endpoint only for its owner: another key's same URL is an endpoint of its own", async () => {
      const ofA = await store.webhooks.add('https://example.com/hook', 1, a);
      await store.webhooks.disable(ofA.id, 2);
      const added = await store.webhooks.addOrEnable('https://example.com/hook', 3, b);
      expect(added).toMatchObject({ created: true, owner: b });
      expect(await store.webhooks.addOrEnable('https://example.com/hook', 4, a)).toMatchObject({
        created: false,
        endpoint: { id: ofA.id },
      });
    });

    it("redelivers a finished job to endpoints its owner added since, not to another key's", async () => {
      const first = await store.webhooks.add('http://127.0.0.1:9/a1', 1, a);
      const jobId = await finishedJob(a);
      const later = await store.webhooks.add('http://127.0.0.1:9/a2', 2_000, a);
      await store.webhooks.add('http://127.0.0.1:9/b', 2_000, b);
      expect(await store.redeliveries.redeliver(jobId, 3_000)).toMatchObject({ created: 1, active: 2 });
      expect(await deliveredTo(jobId)).toEqual([first.id, later.id]);
    });

    it("sends nothing of the former owner's jobs to an endpoint given to another, on assign or on redelivery", async () => {
      const endpoint = await store.webhooks.add('http://127.0.0.1:9/a', 1, a);
      await store.webhooks.disable(endpoint.id, 2);
      const aJob = await finishedJob(a);
      expect(await deliveredTo(aJob)).toEqual([endpoint.id]);
      await store.webhooks.assign(endpoint.id, b);
      const [held] = await opened.sql<{ status: string; last_error: string }>(
        'SELECT status, last_error FROM webhook_deliveries WHERE job_id = ?',
        aJob,
      );
      expect(held).toEqual({ status: 'failed', last_error: 'the endpoint was given to another owner' });
      expect(await store.webhooks.enable(endpoint.id, 3, b)).toMatchObject({ released: 0 });
      expect(await store.redeliveries.redeliver(aJob, 4)).toMatchObject({ queued: 0 });
    });

    it('keeps the owner of a file', async () => {
      const file = { id: 'c'.repeat(22), pages: 1, bytes: 1, createdAt: 0, expiresAt: 10, owner: a };
      await store.fileIndex.insert(file);
      expect(await store.fileIndex.find(file.id, 1)).toEqual(file);
    });
  });

  it('answers a redelivery of an unfinished job with its status', async () => {
    const queued = await store.queue.enqueue({
      caller: 'c',
      identifier: 'i',
      priority: 0,
      request: {},
      baseUrl: 'http://x',
      now: 0,
      dedupeWindowMs: 1,
      maxAttempts: 1,
      bounds: { maxQueue: 9, maxQueuePerCaller: 9, maxQueueBytes: 9e9, maxQueueBytesPerCaller: 9e9 },
    });
    expect(await store.redeliveries.redeliver(queued.id, 1)).toEqual({ outcome: 'unfinished', status: 'queued' });
  });

  it('lists only failed deliveries, newest first, up to the limit', async () => {
    const { fast } = await twoEndpoints();
    for (let i = 0; i < 30; i += 1) await store.deliveries.queueEvent(`job_${i}`, {}, i);
    for (const delivery of await store.deliveries.claim(1_000, 1_000, 20_000)) {
      if (['job_3', 'job_15', 'job_29'].includes(delivery.jobId) && delivery.endpointId === fast.id)
        await store.deliveries.abandon(delivery.id, 410, 'gone');
      else await store.deliveries.succeeded(delivery.id, 200, 1_000);
    }
    expect(
      (await store.deliveries.log(2, true)).map((entry) => [entry.jobId, entry.status, entry.lastStatus, entry.url]),
    ).toEqual([
      ['job_29', 'failed', 410, fast.url],
      ['job_15', 'failed', 410, fast.url],
    ]);
    expect(await store.deliveries.log(50, true)).toHaveLength(3);
    const newest = await store.deliveries.log(1);
    expect(newest).toEqual([
      expect.objectContaining({
        jobId: 'job_29',
        status: 'failed',
        attempts: 1,
        createdAt: 29,
        nextAttemptAt: null,
        deliveredAt: null,
      }),
    ]);
  });

  it('counts rate-limit hits per key and window, peeks without counting, and prunes ended windows', async () => {
    expect(await store.rateWindows.hit('ip:a', 60_500)).toEqual({ count: 1, resetAt: 120_000 });
    expect(await store.rateWindows.hit('ip:a', 119_999)).toEqual({ count: 2, resetAt: 120_000 });
    expect(await store.rateWindows.hit('ip:b', 61_000)).toEqual({ count: 1, resetAt: 120_000 });
    expect(await store.rateWindows.peek('ip:a', 70_000)).toEqual({ count: 2, resetAt: 120_000 });
    expect(await store.rateWindows.hit('ip:a', 120_000)).toEqual({ count: 1, resetAt: 180_000 });
    await store.rateWindows.prune(120_000);
    expect(await store.rateWindows.peek('ip:a', 70_000)).toEqual({ count: 0, resetAt: 120_000 });
    expect(await store.rateWindows.peek('ip:a', 120_001)).toEqual({ count: 1, resetAt: 180_000 });
  });

  it('keeps file rows until they expire, and says which ids it knows', async () => {
    const file = { id: 'a'.repeat(22), pages: 2, bytes: 1234, createdAt: 1_000, expiresAt: 5_000, owner: 'key:abc' };
    const later = { ...file, id: 'b'.repeat(22), expiresAt: 9_000 };
    await store.fileIndex.insert(file);
    await store.fileIndex.insert(later);
    expect(await store.fileIndex.find(file.id, 4_999)).toEqual(file);
    expect(await store.fileIndex.find(file.id, 5_000)).toBeNull();
    expect(await store.fileIndex.expired(5_000)).toEqual([file]);
    expect(await store.fileIndex.known([file.id, 'c'.repeat(22), later.id])).toEqual(new Set([file.id, later.id]));
    await store.fileIndex.remove(file.id);
    expect(await store.fileIndex.known([file.id])).toEqual(new Set());
    await expect(store.ping()).resolves.toBeUndefined();
  });
});

/** The Blobs contract, on `blobs` beside `store`'s file index. Ids are file ids: 22 base64url characters. */
async function blobsContract(store: Store, blobs: Blobs): Promise<void> {
  const pdf = new Uint8Array([37, 80, 68, 70, 0, 255, 1, 2]);
  const [kept, orphan, none] = ['K', 'O', 'N'].map((letter) => letter.repeat(22)) as [string, string, string];
  await blobs.put(kept, pdf);
  await blobs.put(orphan, pdf);
  expect(await blobs.get(kept)).toEqual(pdf);
  expect(await blobs.get(none)).toBeNull();
  await blobs.delete(none);
  await store.fileIndex.insert({ id: kept, pages: 1, bytes: 8, createdAt: 0, expiresAt: 10, owner: '' });
  // Too young to be an orphan: it may be a save between its two steps.
  await blobs.removeOrphans(0, (ids) => store.fileIndex.known(ids));
  expect(await blobs.get(orphan)).toEqual(pdf);
  await blobs.removeOrphans(Date.now() + 86_400_000, (ids) => store.fileIndex.known(ids));
  expect(await blobs.get(orphan)).toBeNull();
  expect(await blobs.get(kept)).toEqual(pdf);
  await blobs.delete(kept);
  expect(await blobs.get(kept)).toBeNull();
}

// Each backend's own Blobs: the data dir's files/ folder (SQLite), a table (PostgreSQL); and S3 (a local server) beside either.
describe.each(backends)('$name blobs', (backend) => {
  it('keeps blobs whole, deletes them, and removes old ones no row names', async () => {
    const opened = await backend.open();
    onTestFinished(() => opened.close());
    await blobsContract(opened.store, opened.blobs);
  });

  it('on S3: the same', async () => {
    const opened = await backend.open();
    onTestFinished(() => opened.close());
    const s3 = await startS3();
    onTestFinished(() => s3.stop());
    const blobs = s3Blobs({
      bucket: s3.bucket,
      prefix: 'pdfs',
      region: 'us-east-1',
      endpoint: s3.endpoint,
      credentials: s3rverCredentials,
    });
    onTestFinished(() => blobs.close());
    await blobsContract(opened.store, blobs);
  });
});
