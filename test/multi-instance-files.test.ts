/**
 * Two real `pdfrender serve` processes on one PostgreSQL with their files in S3
 * (`--files s3://bucket/prefix --s3-endpoint`, a local s3rver, credentials from AWS_*): a fileUrl
 * returned by one downloads from the other, and the PDF is an object in the bucket, not a row of
 * the database.
 */
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServeProcess } from './support/cli.js';
import { jobStatus, onInstance, renderAsync, startDeployment, type Deployment } from './support/instances.js';
import { readPdf } from './support/pdf.js';
import { s3rverCredentials, startS3, type LocalS3 } from './support/s3.js';
import { until } from './support/wait.js';

let s3: LocalS3;
let deployment: Deployment;

beforeAll(async () => {
  s3 = await startS3();
  const env = {
    AWS_ACCESS_KEY_ID: s3rverCredentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s3rverCredentials.secretAccessKey,
  };
  deployment = await startDeployment(
    'files',
    2,
    ['--files', `s3://${s3.bucket}/pdfs`, '--s3-endpoint', s3.endpoint],
    env,
  );
}, 120_000);
afterAll(async () => {
  await deployment?.stop();
  await s3?.stop();
}, 60_000);

describe('several instances with their files in S3', () => {
  it('serves a fileUrl of one instance from the other; the PDF is an object in the bucket', async () => {
    const { db, hook, instances } = deployment;
    const [first, second] = instances as [ServeProcess, ServeProcess];
    const queued = await renderAsync(first.url, { htmlContent: '<h1>kept in the bucket</h1>', identifier: 'in-s3' });
    expect(queued.status).toBe(202);
    const done = await until(async () => {
      const status = await jobStatus(second.url, queued.body.jobId!);
      return status.status === 'succeeded' && status;
    }, 'the job to succeed');
    expect(done.fileUrl!.startsWith(first.url)).toBe(true);

    const download = await fetch(onInstance(done.fileUrl!, second.url));
    expect(download.status).toBe(200);
    expect((await readPdf(new Uint8Array(await download.arrayBuffer()))).pages[0]!.text).toContain(
      'kept in the bucket',
    );

    // Under the prefix, named by the file id; the database keeps its index row but not its bytes.
    const fileId = new URL(done.fileUrl!).pathname.split('/').pop()!;
    const client = new S3Client({
      region: 'us-east-1',
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: s3rverCredentials,
    });
    try {
      const object = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: `pdfs/${fileId}.pdf` }));
      expect((await readPdf(await object.Body!.transformToByteArray())).pages[0]!.text).toContain('kept in the bucket');
    } finally {
      client.destroy();
    }
    const { rows } = await db.query<{ files: string; blobs: string }>(
      'SELECT (SELECT count(*) FROM files WHERE id = $1) AS files, (SELECT count(*) FROM blobs) AS blobs',
      [fileId],
    );
    expect(rows[0]).toEqual({ files: '1', blobs: '0' });

    // Its webhook went out once, naming the first instance's URL.
    await until(() => hook.received.length === 1, 'the webhook');
    expect(JSON.parse(hook.received[0]!.body).payload.url).toBe(done.fileUrl);
  });
});
