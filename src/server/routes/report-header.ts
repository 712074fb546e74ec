/**
 * The preflight report in a header (X-Pdfrender-Report), for callers who asked for the PDF bytes
 * themselves: the whole report as ASCII JSON when it fits in a size proxies accept, else its
 * problems counted per kind and its timings, marked truncated (the JSON answer has it whole).
 */
import type { Context } from 'hono';
import type { z } from 'zod';
import { problemCounts, type RenderReport } from '../../engine/report/render-report.js';
import type { truncatedReport } from '../api/api-answers.js';
import { asciiJson, maxHeaderJsonChars } from './header-json.js';

/** The value of X-Pdfrender-Report for `report`. */
export function reportHeader(report: RenderReport): string {
  const whole = asciiJson(report);
  if (whole.length <= maxHeaderJsonChars) return whole;
  return asciiJson({
    truncated: true,
    counts: problemCounts(report),
    timings: report.timings,
  } satisfies z.infer<typeof truncatedReport>);
}

/** Set X-Pdfrender-Report on the answer. */
export function setReportHeader(c: Context, report: RenderReport): void {
  c.header('X-Pdfrender-Report', reportHeader(report));
}
