/**
 * The one place where errors become HTTP responses: the code is the API's `outcome`, its status
 * comes from errors.ts, and only the safe message is sent; the cause goes to the operator's log.
 */
import type { Context } from 'hono';
import { requestWhere } from './edge/request-id.js';
import { reportOf } from '../engine/report/render-report.js';
import { callerError, httpStatusFor, PdfRenderError, type ErrorCode } from '../errors.js';
import type { EventLog } from '../event-log.js';
import { connectionOf } from './edge/connection.js';

// Failures whose cause the caller is not told in full: the operator's log gets it, as it gets the
// cause of any other server-side failure that has one (a storage fault's errno, say).
const loggedCodes = new Set<ErrorCode>(['RENDER_PDF_FAILED', 'BROWSER_NOT_FOUND', 'INTERNAL_ERROR']);

/** The JSON error response for `error`; anything unexpected is a 500 without details. */
export function errorResponse(c: Context, error: unknown, events: EventLog): Response {
  const { code, message } = callerError(error);
  const causeUntold = error instanceof Error && error.cause !== undefined && httpStatusFor(code) >= 500;
  // A body read that failed because its connection is gone (the client left, or the listener cut a
  // trickling upload and said so once per address) is no fault here, and a line each would let one
  // client fill the log.
  const connectionGone = !(error instanceof PdfRenderError) && connectionOf(c)?.destroyed === true;
  if ((loggedCodes.has(code) || causeUntold) && !connectionGone) {
    events({
      level: code === 'INTERNAL_ERROR' ? 'error' : 'warn',
      message:
        code === 'INTERNAL_ERROR' ? 'unexpected error' : loggedCodes.has(code) ? 'render failed' : 'request failed',
      ...requestWhere(c),
      code,
      error,
    });
  }
  // A refusal whose detail the caller may not see (a webhook URL's resolved address): the operator may.
  if (error instanceof PdfRenderError && error.detail !== undefined)
    events({
      level: 'info',
      message: 'request refused',
      ...requestWhere(c),
      code,
      detail: error.detail,
    });
  if (!(error instanceof PdfRenderError)) return c.json({ outcome: code, message }, 500);
  if (error.retryAfter !== undefined) c.header('Retry-After', String(error.retryAfter));
  const body: Record<string, unknown> = { outcome: code };
  if (code === 'VALIDATION_FAILED') body.errors = error.fieldErrors ?? {};
  else if (code === 'RATE_LIMITED') body.retryAfter = error.retryAfter;
  body.message = message;
  // A render a failOn rule failed: the caller gets its preflight report, to see what failed it.
  const report = code === 'RENDER_PDF_FAILED' ? reportOf(error) : undefined;
  if (report) body.report = report;
  return c.json(body, httpStatusFor(code));
}
