/**
 * The bytes of rendered PDFs in an S3 bucket (`--files s3://bucket/prefix`), one object
 * `<prefix>/<id>.pdf` each, so every instance reads what any instance wrote. S3 makes a PutObject
 * visible whole or not at all, so no temporary names are needed; a Content-MD5 has the store
 * refuse bytes damaged on the way. Faults of the store throw STORAGE_UNAVAILABLE (s3-errors.ts).
 */
import { createHash } from 'node:crypto';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { StorageFault } from '../health/storage-health.js';
import type { Blobs } from '../contract.js';
import { s3Call, s3Problem, s3Unavailable } from './s3-errors.js';
import type { FilesLocation, S3Connection } from './s3-location.js';

export interface S3BlobsOptions extends FilesLocation, S3Connection {
  /** Keys per ListObjectsV2 page (S3's own maximum, 1000, unless told); smaller in tests. */
  pageSize?: number;
  /** Give up connecting after this long (default 5 s). */
  connectTimeoutMs?: number;
  /** Give up on a request whose connection stays silent this long (default 30 s): a stalled store, not a large file. */
  idleTimeoutMs?: number;
}

/** Blobs in S3, plus a readiness check and a way to let go of the client's connections. */
export interface S3Blobs extends Blobs {
  /** Whether the bucket can be reached with these credentials now (HeadBucket): null, or the fault. */
  check(): Promise<StorageFault | null>;
  /** Close the client's kept-alive connections (after the work using it stopped). */
  close(): void;
}

const idName = /^[A-Za-z0-9_-]{22}$/;
/** `known` is asked about at most this many ids at once (a bound on the database query). */
const knownBatch = 500;

/** PDFs stored as `<prefix>/<id>.pdf` objects in `options.bucket`. */
export function s3Blobs(options: S3BlobsOptions): S3Blobs {
  const client = new S3Client({
    region: options.region,
    ...(options.credentials ? { credentials: options.credentials } : {}),
    // Other S3 servers seldom resolve bucket host names (bucket.127.0.0.1 means nothing).
    ...(options.endpoint ? { endpoint: options.endpoint, forcePathStyle: true } : {}),
    // Only the checksums S3 demands: some S3-compatible servers refuse the newer CRC headers. Puts carry a Content-MD5 instead, the older check they all know.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: {
      connectionTimeout: options.connectTimeoutMs ?? 5_000,
      socketTimeout: options.idleTimeoutMs ?? 30_000,
    },
  });
  const { bucket } = options;
  const folder = options.prefix === '' ? '' : `${options.prefix}/`;

  const keyOf = (id: string): string => {
    // Ids come from our own index; anything else here is a bug, not a key to make up.
    if (!idName.test(id)) throw new TypeError(`not a file id: "${id}"`);
    return `${folder}${id}.pdf`;
  };
  /** The id an object key names, or undefined for keys that are not ours (other files, deeper folders). */
  const idOf = (key: string): string | undefined => {
    const name = key.startsWith(folder) ? key.slice(folder.length) : '';
    return name.endsWith('.pdf') && idName.test(name.slice(0, -4)) ? name.slice(0, -4) : undefined;
  };

  /** Delete the objects of `ids` that `known` does not name. */
  const deleteUnknown = async (ids: string[], known: (ids: string[]) => Promise<Set<string>>): Promise<void> => {
    const rowed = await known(ids);
    const orphans = ids.filter((id) => !rowed.has(id));
    if (orphans.length === 0) return;
    const answer = await s3Call(() =>
      client.send(
        new DeleteObjectsCommand({
          Bucket: bucket,
          Delete: { Objects: orphans.map((id) => ({ Key: keyOf(id) })), Quiet: true },
        }),
      ),
    );
    // A multi-delete answers 200 with the keys it could not delete listed: their fault is the store's.
    const failed = answer.Errors ?? [];
    if (failed.length > 0)
      throw s3Unavailable(
        `the S3 store did not delete ${failed.length} of ${orphans.length} left-over files (${failed[0]?.Code ?? 'no code'})`,
        failed,
      );
  };

  return {
    async put(id, bytes) {
      const md5 = createHash('md5').update(bytes).digest('base64');
      await s3Call(() =>
        client.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: keyOf(id),
            Body: bytes,
            ContentType: 'application/pdf',
            ContentMD5: md5,
          }),
        ),
      );
    },

    async get(id) {
      try {
        return await s3Call(async () => {
          const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: keyOf(id) }));
          // The body streams after the headers: a connection dropped mid-file is a fault of the store too.
          const bytes = answer.Body ? await answer.Body.transformToByteArray() : new Uint8Array();
          if (answer.ContentLength !== undefined && bytes.byteLength !== answer.ContentLength)
            throw s3Unavailable(`the S3 store sent ${bytes.byteLength} of ${answer.ContentLength} bytes`);
          return bytes;
        });
      } catch (error) {
        if ((error as { name?: string }).name === 'NoSuchKey') return null;
        throw error;
      }
    },

    async delete(id) {
      // S3 answers 204 for a key that is not there.
      await s3Call(() => client.send(new DeleteObjectCommand({ Bucket: bucket, Key: keyOf(id) })));
    },

    async removeOrphans(before, known) {
      let token: string | undefined;
      do {
        const page = await s3Call(() =>
          client.send(
            new ListObjectsV2Command({
              Bucket: bucket,
              Prefix: folder,
              MaxKeys: options.pageSize ?? 1000,
              ContinuationToken: token,
            }),
          ),
        );
        // S3 lists in key order and its token says where to go on, so deleting listed keys does not skip any.
        const old = (page.Contents ?? [])
          .filter((object) => object.LastModified !== undefined && object.LastModified.getTime() < before)
          .map((object) => idOf(object.Key ?? ''))
          .filter((id): id is string => id !== undefined);
        for (let start = 0; start < old.length; start += knownBatch)
          await deleteUnknown(old.slice(start, start + knownBatch), known);
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    },

    async check() {
      try {
        await client.send(new HeadBucketCommand({ Bucket: bucket }));
        return null;
      } catch (error) {
        return {
          code: 'STORAGE_UNAVAILABLE',
          reason: s3Problem(error) ?? `the S3 bucket cannot be checked (${(error as Error).name})`,
        };
      }
    },

    close() {
      client.destroy();
    },
  };
}
