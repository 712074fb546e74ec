/**
 * The one place where errors become HTTP responses: the code is the API's `outcome`, its status
 * comes from errors.ts, and only the safe message is sent (the cause goes to the server's log).
 */
import type { Context } from 'hono';
import { httpStatusFor, PdfRenderError } from '../errors.js';

/** The JSON error response for `error`; anything unexpected is a 500 without details. */
export function errorResponse(c: Context, error: unknown): Response {
  if (!(error instanceof PdfRenderError)) {
    console.error('pdfrender: unexpected error while handling', c.req.method, c.req.path, error);
    return c.json({ outcome: 'INTERNAL_ERROR', message: 'the server failed unexpectedly; see its log' }, 500);
  }
  if (error.retryAfter !== undefined) c.header('Retry-After', String(error.retryAfter));
  const body: Record<string, unknown> = { outcome: error.code };
  if (error.code === 'VALIDATION_FAILED') body.errors = error.fieldErrors ?? {};
  else if (error.code === 'RATE_LIMITED') body.retryAfter = error.retryAfter;
  body.message = error.message;
  return c.json(body, httpStatusFor(error.code));
}
