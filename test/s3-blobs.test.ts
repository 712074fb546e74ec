/**
 * `--files s3://...`: the Blobs contract against a real S3-compatible server (s3rver on loopback),
 * and its faults as STORAGE_UNAVAILABLE (the location parser: s3-location.test.ts).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPdfRenderError, type PdfRenderError } from '../src/errors.js';
import { s3Blobs, type S3BlobsOptions } from '../src/store/files/s3-blobs.js';
import { s3Connection } from '../src/store/files/s3-location.js';
import { readPdf } from './support/pdf.js';
import { startS3, s3rverCredentials, type LocalS3 } from './support/s3.js';

/** A one-page PDF saying `text`, grown by an unreferenced stream of `padding` random bytes. */
function makePdf(text: string, padding = 0): Uint8Array {
  const content = `BT /F1 24 Tf 72 700 Td (${text}) Tj ET`;
  const objects: Array<string | Buffer> = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    Buffer.concat([
      Buffer.from(`<< /Length ${padding} >>\nstream\n`),
      randomBytes(padding),
      Buffer.from('\nendstream'),
    ]),
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  objects.forEach((body, index) => {
    offsets.push(length);
    const part = Buffer.concat([Buffer.from(`${index + 1} 0 obj\n`), Buffer.from(body), Buffer.from('\nendobj\n')]);
    parts.push(part);
    length += part.length;
  });
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  parts.push(
    Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`),
  );
  return new Uint8Array(Buffer.concat(parts));
}

const newId = () => randomBytes(16).toString('base64url');

/** What a call threw (failing the test when it did not throw). */
async function thrown(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

let s3: LocalS3;
let base: S3BlobsOptions;

beforeAll(async () => {
  s3 = await startS3();
  base = {
    bucket: s3.bucket,
    prefix: 'pdfs',
    endpoint: s3.endpoint,
    ...s3Connection({
      AWS_ACCESS_KEY_ID: s3rverCredentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3rverCredentials.secretAccessKey,
    }),
  };
});
afterAll(async () => {
  await s3?.stop();
});

describe('s3Blobs', () => {
  it('puts, gets and deletes a PDF under <prefix>/<id>.pdf; a missing id reads as null', async () => {
    const blobs = s3Blobs(base);
    const id = newId();
    await blobs.put(id, makePdf('hello from s3'));
    const back = await blobs.get(id);
    expect(back).not.toBeNull();
    const pdf = await readPdf(back!);
    expect(pdf.pages).toHaveLength(1);
    expect(pdf.pages[0]!.text).toContain('hello from s3');
    // The object is where the README says, so an operator can find it.
    const other = s3Blobs({ ...base, prefix: '' });
    expect(await other.get(id)).toBeNull();
    await blobs.delete(id);
    expect(await blobs.get(id)).toBeNull();
    // Deleting what is not there is no error.
    await blobs.delete(id);
    expect(await blobs.get(newId())).toBeNull();
    blobs.close();
    other.close();
  });

  it('round-trips a 10 MB PDF byte for byte', async () => {
    const blobs = s3Blobs(base);
    const id = newId();
    const pdf = makePdf('large document', 10 * 1024 * 1024);
    const started = performance.now();
    await blobs.put(id, pdf);
    const back = await blobs.get(id);
    console.log(`10 MB put + get through s3rver: ${Math.round(performance.now() - started)} ms`);
    expect(back?.byteLength).toBe(pdf.byteLength);
    expect(Buffer.from(back!).equals(Buffer.from(pdf))).toBe(true);
    expect((await readPdf(back!)).pages[0]!.text).toContain('large document');
    blobs.close();
  });

  it('removeOrphans deletes old objects no row names, keeps known and young ones and keys not its own', async () => {
    const blobs = s3Blobs({ ...base, prefix: 'sweep' });
    const neighbour = s3Blobs({ ...base, prefix: 'sweep-other' });
    const deeper = s3Blobs({ ...base, prefix: 'sweep/kept-by-someone' });
    const [known, orphan, young] = [newId(), newId(), newId()];
    for (const id of [known, orphan, young]) await blobs.put(id, makePdf(id));
    await neighbour.put(orphan, makePdf('not in this prefix'));
    await deeper.put(orphan, makePdf('in a folder under the prefix'));
    const knownOnly = async (ids: string[]) => new Set(ids.filter((id) => id === known));

    // Everything was written after this: nothing counts as old yet, so nothing goes.
    await blobs.removeOrphans(Date.now() - 60_000, knownOnly);
    for (const id of [known, orphan, young]) expect(await blobs.get(id), id).not.toBeNull();

    // An hour on, the unknown ones are old; `young` gets a row meanwhile (a save finishing).
    await blobs.removeOrphans(
      Date.now() + 60 * 60_000,
      async (ids) => new Set(ids.filter((id) => id === known || id === young)),
    );
    expect(await blobs.get(known)).not.toBeNull();
    expect(await blobs.get(young)).not.toBeNull();
    expect(await blobs.get(orphan)).toBeNull();
    expect(await neighbour.get(orphan)).not.toBeNull();
    expect(await deeper.get(orphan)).not.toBeNull();
    for (const client of [blobs, neighbour, deeper]) client.close();
  });

  it('lists over several pages and asks `known` about at most 500 ids at a time', async () => {
    // Pages of 600 (S3's default is 1000; fewer puts keep the test quick): two pages, more than 500 ids on the first.
    const blobs = s3Blobs({ ...base, prefix: 'many', pageSize: 600 });
    const ids = Array.from({ length: 700 }, newId);
    const tiny = makePdf('x');
    for (let start = 0; start < ids.length; start += 100)
      await Promise.all(ids.slice(start, start + 100).map((id) => blobs.put(id, tiny)));
    const keep = new Set(ids.filter((_, index) => index % 2 === 0));
    const asked: number[] = [];
    const seen = new Set<string>();
    await blobs.removeOrphans(Date.now() + 60 * 60_000, async (batch) => {
      asked.push(batch.length);
      for (const id of batch) seen.add(id);
      return new Set(batch.filter((id) => keep.has(id)));
    });
    // Every id asked about once, in batches of 500 at most.
    expect(seen.size).toBe(700);
    expect(asked).toEqual([500, 100, 100]);
    const left = new Set<string>();
    await blobs.removeOrphans(Date.now() + 60 * 60_000, async (batch) => {
      for (const id of batch) left.add(id);
      return new Set(batch);
    });
    expect([...left].sort()).toEqual([...keep].sort());
    blobs.close();
  });

  it('pages through a listing of any page size', async () => {
    const blobs = s3Blobs({ ...base, prefix: 'paged', pageSize: 3 });
    const ids = Array.from({ length: 10 }, newId);
    for (const id of ids) await blobs.put(id, makePdf('p'));
    const calls: string[][] = [];
    await blobs.removeOrphans(Date.now() + 60 * 60_000, async (batch) => {
      calls.push(batch);
      return new Set();
    });
    expect(calls.map((batch) => batch.length)).toEqual([3, 3, 3, 1]);
    for (const id of ids) expect(await blobs.get(id)).toBeNull();
    blobs.close();
  });

  it('answers STORAGE_UNAVAILABLE, cause kept, when the bucket refuses the credentials', async () => {
    const blobs = s3Blobs({ ...base, credentials: { accessKeyId: 'NOT-A-KEY', secretAccessKey: 'wrong' } });
    for (const call of [
      () => blobs.put(newId(), makePdf('x')),
      () => blobs.get(newId()),
      () => blobs.removeOrphans(Date.now(), async () => new Set()),
    ]) {
      const error = await thrown(call);
      expect(isPdfRenderError(error, 'STORAGE_UNAVAILABLE'), String(error)).toBe(true);
      expect((error as PdfRenderError).message).toMatch(/refused access/);
      expect((error as PdfRenderError).retryAfter).toBeGreaterThan(0);
      expect((error as Error).cause).toMatchObject({ name: 'InvalidAccessKeyId' });
    }
    expect(await blobs.check()).toEqual({
      code: 'STORAGE_UNAVAILABLE',
      reason: expect.stringMatching(/refused access/),
    });
    blobs.close();
  });

  it('check() is null for a reachable bucket and names a missing one', async () => {
    const blobs = s3Blobs(base);
    expect(await blobs.check()).toBeNull();
    const missing = s3Blobs({ ...base, bucket: 'no-such-bucket' });
    expect(await missing.check()).toEqual({
      code: 'STORAGE_UNAVAILABLE',
      reason: expect.stringMatching(/bucket does not exist/),
    });
    expect(isPdfRenderError(await thrown(() => missing.put(newId(), makePdf('x'))), 'STORAGE_UNAVAILABLE')).toBe(true);
    blobs.close();
    missing.close();
  });

  it('answers STORAGE_UNAVAILABLE, not a raw error, when the server is down', async () => {
    const down = await startS3('gone');
    const blobs = s3Blobs({ ...base, bucket: down.bucket, endpoint: down.endpoint });
    const id = newId();
    await blobs.put(id, makePdf('before the fall'));
    await down.stop();
    for (const call of [() => blobs.get(id), () => blobs.put(newId(), makePdf('x')), () => blobs.delete(id)]) {
      const error = await thrown(call);
      expect(isPdfRenderError(error, 'STORAGE_UNAVAILABLE'), String(error)).toBe(true);
      expect((error as Error).message).toMatch(/cannot be reached/);
      expect((error as Error).cause).toMatchObject({ code: 'ECONNREFUSED' });
    }
    expect(await blobs.check()).toEqual({
      code: 'STORAGE_UNAVAILABLE',
      reason: expect.stringMatching(/cannot be reached \(ECONNREFUSED\)/),
    });
    blobs.close();
  });
});
