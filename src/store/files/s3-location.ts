/**
 * Where `--files s3://bucket/prefix` puts rendered PDFs, and how the S3 client finds its store:
 * the location parsed once (with an error naming what is wrong), an optional endpoint for
 * S3-compatible servers, and the usual AWS_* variables read here, at the edge, from the env given.
 */
import { z } from 'zod';
import { PdfRenderError } from '../../errors.js';

/** A bucket and the key prefix (no leading or trailing slash; '' for the bucket's root) the PDFs go under. */
export interface FilesLocation {
  bucket: string;
  prefix: string;
}

// S3's own bucket rules (3 to 63 of a-z 0-9 . -, starting and ending with a letter or digit).
const bucketName = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const example = '"s3://my-bucket/pdfs"';

/** `s3://bucket/prefix` as {bucket, prefix}, or the problem in words. */
export function parseFilesLocation(text: string): FilesLocation | { problem: string } {
  const match = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/]*)(?:\/(.*))?$/.exec(text.trim());
  if (!match) return { problem: `must be an S3 location such as ${example} (got "${text}")` };
  const [, scheme, bucket, path = ''] = match as unknown as [string, string, string, string | undefined];
  if (scheme.toLowerCase() !== 's3')
    return { problem: `must start with s3:// (got the scheme "${scheme}://"); for example ${example}` };
  if (bucket === '') return { problem: `names no bucket: give one after s3://, as in ${example}` };
  if (!bucketName.test(bucket)) {
    return {
      problem: `"${bucket}" is not a bucket name: 3 to 63 lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit (no credentials or port here: use the AWS_* variables and --s3-endpoint)`,
    };
  }
  // Trailing slashes are a habit ("s3://b/pdfs/"); empty or dot segments would make keys no one can list as a folder.
  const prefix = path.replace(/\/+$/, '');
  if (prefix !== '' && prefix.split('/').some((segment) => segment === '' || segment === '.' || segment === '..')) {
    return { problem: `the prefix "${path}" has an empty, "." or ".." part; use plain folder names, as in ${example}` };
  }
  if (/[?#]/.test(prefix))
    return { problem: `the prefix "${path}" has a "?" or "#"; use plain folder names, as in ${example}` };
  return { bucket, prefix };
}

/** The `--files` setting: an S3 location, parsed to {bucket, prefix}; the integrator adds `.optional().describe(...)`. */
export const filesLocationField = z.string().transform((value, ctx) => {
  const parsed = parseFilesLocation(value);
  if ('problem' in parsed) {
    ctx.addIssue({ code: 'custom', message: parsed.problem, input: value });
    return z.NEVER;
  }
  return parsed;
});

/** The `--s3-endpoint` setting: the base URL of an S3-compatible server (MinIO, a local one), http or https. */
export const s3EndpointField = z.url({
  protocol: /^https?$/,
  error: 'must be an http:// or https:// URL such as "http://127.0.0.1:9000"',
});

/** How the client reaches and signs in to the store. */
export interface S3Connection {
  region: string;
  /** Base URL of an S3-compatible server (MinIO, a local one), addressed path-style; absent: AWS itself. */
  endpoint?: string;
  /** Absent: the SDK's own chain (shared config files, web identity, instance roles) finds them. */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

/**
 * Region, endpoint and credentials from AWS_REGION (or AWS_DEFAULT_REGION; else us-east-1),
 * AWS_ENDPOINT_URL_S3 (or AWS_ENDPOINT_URL), AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
 * AWS_SESSION_TOKEN; a --s3-endpoint given to s3Blobs after these wins over the variables.
 */
export function s3Connection(env: NodeJS.ProcessEnv): S3Connection {
  const region = env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1';
  // Read here rather than left to the SDK, which would address a local server by bucket host names.
  const endpointVariable = ['AWS_ENDPOINT_URL_S3', 'AWS_ENDPOINT_URL'].find((name) => env[name]);
  let endpoint: string | undefined;
  if (endpointVariable) {
    const parsed = s3EndpointField.safeParse(env[endpointVariable]);
    if (!parsed.success) {
      const message = `${endpointVariable}: ${parsed.error.issues[0]?.message ?? 'not a URL'} (got "${env[endpointVariable]}")`;
      throw new PdfRenderError('VALIDATION_FAILED', message, { fieldErrors: { [endpointVariable]: [message] } });
    }
    endpoint = parsed.data;
  }
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  return {
    region,
    ...(endpoint ? { endpoint } : {}),
    ...(accessKeyId && secretAccessKey
      ? {
          credentials: {
            accessKeyId,
            secretAccessKey,
            ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
          },
        }
      : {}),
  };
}
