/**
 * The identifier dedupe rule both stores apply when queuing a job: the same identifier from the
 * same caller within the window is refused (402), saying when it may be used again.
 */
import { PdfRenderError } from '../errors.js';

/** The DUPLICATE_IDENTIFIER refusal when `identifier` was seen at `seenAt` within `windowMs` of `now`; undefined when it may be used. */
export function duplicateIdentifier(identifier: string, seenAt: number | undefined, now: number, windowMs: number): PdfRenderError | undefined {
  if (seenAt === undefined || seenAt <= now - windowMs) return undefined;
  const wait = Math.ceil((seenAt + windowMs - now) / 1000);
  return new PdfRenderError(
    'DUPLICATE_IDENTIFIER',
    `identifier "${identifier}" was already sent in the last ${windowMs / 1000} s; it may be used again in ${wait} s`,
  );
}
