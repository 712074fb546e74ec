/**
 * The identifier dedupe rule both stores apply when queuing a job: the same identifier from the
 * same caller within the window is refused (402), saying when it may be used again, unless it comes
 * with the same request (and priority) as the job it queued: that is a retry (the caller never got
 * its answer: a lost connection, a 504 OUTCOME_UNKNOWN), answered with that job rather than a
 * second one or a 402.
 */
import { createHash } from 'node:crypto';
import { PdfRenderError } from '../errors.js';

/** What makes two sends of an identifier the same request: its request (defaults applied) and priority, hashed (SHA-256, base64url). */
export function requestDigest(input: { request: unknown; priority: number }): string {
  return createHash('sha256')
    .update(JSON.stringify([input.priority, input.request]))
    .digest('base64url');
}

/** The DUPLICATE_IDENTIFIER refusal when `identifier` was seen at `seenAt` within `windowMs` of `now`; undefined when it may be used. */
export function duplicateIdentifier(identifier: string, seenAt: number | undefined, now: number, windowMs: number): PdfRenderError | undefined {
  if (seenAt === undefined || seenAt <= now - windowMs) return undefined;
  const wait = Math.ceil((seenAt + windowMs - now) / 1000);
  return new PdfRenderError(
    'DUPLICATE_IDENTIFIER',
    `identifier "${identifier}" was already sent in the last ${windowMs / 1000} s; it may be used again in ${wait} s`,
  );
}
