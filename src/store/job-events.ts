/**
 * A finished job as its webhook event is made of: the columns both stores read it from (in the
 * statement that finishes the job, or for a redelivery), and the FinishedJob they make of them for
 * the event builder the server passes in (contract.ts JobEventBuilder).
 */
import type { ErrorCode } from '../errors.js';
import type { FinishedJob } from './contract.js';

/** The columns of a finished job that its event is made of. */
export interface FinishedJobRow {
  id: string;
  /** Whose job it is: its event goes to that owner's endpoints (owners.ts ownerOfCaller). */
  caller: string;
  identifier: string;
  base_url: string;
  status: string;
  file_id: string | null;
  pages: number | null;
  bytes: number | null;
  error: string | null;
  error_code: ErrorCode | null;
  /** The preflight report as JSON text. */
  report: string | null;
}

/** The columns of FinishedJobRow, for a statement that returns them. */
export const eventColumns =
  'id, caller, identifier, base_url, status, file_id, pages, bytes, error, error_code, report';

/** The job a FinishedJobRow is (its status succeeded or failed). */
export const finishedJob = (row: FinishedJobRow): FinishedJob => ({
  id: row.id,
  identifier: row.identifier,
  baseUrl: row.base_url,
  status: row.status === 'succeeded' ? 'succeeded' : 'failed',
  fileId: row.file_id,
  pages: row.pages,
  bytes: row.bytes,
  error: row.error,
  errorCode: row.error_code,
  report: row.report === null ? null : JSON.parse(row.report),
});
