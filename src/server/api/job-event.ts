/**
 * The webhook event a finished job sends, PDF_RENDERED or RENDER_PDF_FAILED, in the API's shape
 * (api-answers.ts): what the server passes the store as its JobEventBuilder, so the job store (when
 * the job finishes) and a redelivery (of a job that has no delivery yet) send the same body.
 */
import type { FinishedJob } from '../../store/contract.js';
import type { WebhookEvent } from './api-answers.js';
import { fileUrlPath } from './api-paths.js';

// The report is an extra field: RenderPDF.io's clients read id and url, and a job finished before
// reports were kept has none.
const report = (job: FinishedJob) => (job.report ? { report: job.report } : {});

/** The event of a job that has succeeded or failed for good. */
export function webhookEvent(job: FinishedJob): WebhookEvent {
  // A succeeded job has its file, pages and bytes, and a failed one its error: the store writes them together.
  return job.status === 'succeeded'
    ? {
        type: 'PDF_RENDERED',
        payload: {
          id: job.identifier,
          url: `${job.baseUrl}${fileUrlPath(job.fileId!)}`,
          jobId: job.id,
          pages: job.pages!,
          bytes: job.bytes!,
          ...report(job),
        },
      }
    : {
        type: 'RENDER_PDF_FAILED',
        payload: { id: job.identifier, jobId: job.id, error: job.error!, errorCode: job.errorCode!, ...report(job) },
      };
}
