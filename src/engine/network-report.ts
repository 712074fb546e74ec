/**
 * What a render reports of the URLs it could not load, in the terms every room of the engine (the
 * page guard, the header and footer templates) and everything above it (the API, the queue, the
 * CLI's report) share: why a URL failed, an issue, a render's report, and its bounds.
 */
import { connectionFailureCodes } from '../network/connection-failure.js';
import type { RefusalCode } from '../network/refusal.js';

/**
 * Why a URL failed to load: the server answered an HTTP error, its connection was refused, reset or
 * not answered in time (network/connection-failure.ts), the load failed otherwise (a net:: error), a
 * header or footer template refers to what Chromium cannot load there (a web font, a script), or a
 * document with no base URL refers to a relative one (relative-urls.ts).
 */
export const failureCodes = [
  'HTTP_ERROR',
  ...connectionFailureCodes,
  'LOAD_FAILED',
  'TEMPLATE_UNSUPPORTED',
  'RELATIVE_URL',
] as const;
export type FailureCode = (typeof failureCodes)[number];

/**
 * A URL a document asked for and did not get: a code and a reason safe for any caller (see
 * network/refusal.ts), and the detail for the operator's log only (never sent to a caller).
 */
export interface ResourceIssue {
  url: string;
  code: RefusalCode | FailureCode;
  reason: string;
  detail?: string;
}

/** The URLs of one render that the policy refused (`blocked`) or that failed to load (`failed`). */
export interface NetworkReport {
  blocked: ResourceIssue[];
  failed: ResourceIssue[];
}

/** The report as callers see it: each issue's url, code and safe reason, without the operator's detail. */
export function publicReport(report: NetworkReport): NetworkReport {
  const strip = (issues: ResourceIssue[]) => issues.map(({ url, code, reason }) => ({ url, code, reason }));
  return { blocked: strip(report.blocked), failed: strip(report.failed) };
}

// Reports are capped, so a document that asks for a million URLs cannot grow one without bound.
export const maxIssues = 100;

/** A URL as reports keep it: long enough to tell, bounded so that a report stays small. */
export const cappedUrl = (url: string): string => url.slice(0, 2000);
