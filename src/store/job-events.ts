/**
 * The webhook event a finished job sends: PDF_RENDERED or RENDER_PDF_FAILED, built from its row,
 * so the job store (when the job finishes) and a redelivery (of a job that has no delivery yet)
 * send the same body.
 */
import type { WebhookEvent } from '../api-answers.js';
import type { ErrorCode } from '../errors.js';
import { fileUrlPath } from '../queue/urls.js';

/** The columns of a finished job that its event is made of. */
export interface FinishedJobRow {
  id: string;
  identifier: string;
  base_url: string;
  status: string;
  file_id: string | null;
  pages: number | null;
  bytes: number | null;
  error: string | null;
  error_code: ErrorCode | null;
}

/** The columns of FinishedJobRow, for a statement that returns them. */
export const eventColumns = 'id, identifier, base_url, status, file_id, pages, bytes, error, error_code';

/** The event of a job that has succeeded or failed for good. */
export function jobEvent(row: FinishedJobRow): WebhookEvent {
  // A succeeded row has its file, pages and bytes, and a failed one its error: the store writes them together.
  return row.status === 'succeeded'
    ? {
        type: 'PDF_RENDERED',
        payload: { id: row.identifier, url: `${row.base_url}${fileUrlPath(row.file_id!)}`, jobId: row.id, pages: row.pages!, bytes: row.bytes! },
      }
    : { type: 'RENDER_PDF_FAILED', payload: { id: row.identifier, jobId: row.id, error: row.error!, errorCode: row.error_code! } };
}
