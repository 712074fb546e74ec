/**
 * Which failures of an S3 call are the store's fault rather than a bug: it cannot be reached, it
 * answers 5xx, it refuses our credentials, the bucket is missing or elsewhere. Each becomes a
 * STORAGE_UNAVAILABLE PdfRenderError (503 with Retry-After, seen by the health monitor) with the
 * SDK's error as its cause; any other error (a 400 for a request we built wrong) stays raw, a bug.
 */
import { PdfRenderError } from '../../errors.js';
import { storageError } from '../storage-errors.js';

interface SdkError {
  name?: string;
  code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
}

// Errnos of a store that cannot be reached or dropped us; the SDK passes them through unchanged.
const networkErrnos = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ECONNABORTED',
  'EPROTO',
  'ERR_STREAM_PREMATURE_CLOSE',
]);

/** The store's problem an S3 call's error shows, in words safe for any caller (no endpoint, bucket or key); undefined when not the store's fault. */
export function s3Problem(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { name = 'Error', code, $metadata } = error as SdkError;
  const status = $metadata?.httpStatusCode;
  if (status === undefined) {
    if (code && networkErrnos.has(code)) return `the S3 store cannot be reached (${code})`;
    if (name === 'TimeoutError') return 'the S3 store did not answer in time';
    // Neither the AWS_* variables nor any other source the SDK tries gave credentials.
    if (name === 'CredentialsProviderError')
      return 'no S3 credentials were found, so access cannot be granted (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)';
    return undefined;
  }
  if (status === 401 || status === 403)
    return `the S3 store refused access (${status} ${name}): check the credentials and the bucket's policy`;
  if (name === 'NoSuchBucket' || (name === 'NotFound' && status === 404))
    return `the S3 bucket does not exist (${status} ${name})`;
  if (status === 301 || status === 307 || name === 'PermanentRedirect')
    return `the S3 bucket is in another region or behind another endpoint (${status} ${name}): check AWS_REGION and --s3-endpoint`;
  if (status >= 500) return `the S3 store is failing (${status} ${name})`;
  return undefined;
}

/** A STORAGE_UNAVAILABLE error saying `problem`, with `cause` kept for the operator's log. */
export function s3Unavailable(problem: string, cause?: unknown): PdfRenderError {
  // Retry-After as any unavailable storage gets it; the message names the problem (it names no endpoint or key).
  const { retryAfter } = storageError('STORAGE_UNAVAILABLE');
  return new PdfRenderError(
    'STORAGE_UNAVAILABLE',
    `the server's file storage is unavailable: ${problem}; try again later or another instance`,
    {
      cause,
      retryAfter,
    },
  );
}

/** Run one S3 call, turning a fault of the store into STORAGE_UNAVAILABLE (other errors pass unchanged). */
export async function s3Call<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const problem = s3Problem(error);
    throw problem ? s3Unavailable(problem, error) : error;
  }
}
