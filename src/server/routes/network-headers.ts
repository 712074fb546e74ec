/**
 * The sync response's report of blocked and failed URLs, in headers, so that it reaches callers
 * who asked for the PDF bytes themselves: a JSON array of {url, code, reason}, in ASCII, kept under a
 * size proxies accept; the count header says how many there were in all.
 */
import type { Context } from 'hono';
import type { NetworkReport } from '../../engine/network-report.js';
import { asciiJson, maxHeaderJsonChars } from './header-json.js';

/** Set X-Pdfrender-Blocked(-Count) and X-Pdfrender-Failed(-Count) when there is anything to report. */
export function setNetworkHeaders(c: Context, report: NetworkReport): void {
  for (const [name, issues] of [
    ['Blocked', report.blocked],
    ['Failed', report.failed],
  ] as const) {
    if (issues.length === 0) continue;
    c.header(`X-Pdfrender-${name}-Count`, String(issues.length));
    c.header(`X-Pdfrender-${name}`, fittingIssues(issues));
  }
}

// As many entries as fit, as ASCII JSON (header-json.ts).
function fittingIssues(issues: NetworkReport['blocked']): string {
  let kept = issues.map((issue) => ({
    url: issue.url.slice(0, 500),
    code: issue.code,
    reason: issue.reason.slice(0, 300),
  }));
  let value = asciiJson(kept);
  while (value.length > maxHeaderJsonChars && kept.length > 1) {
    kept = kept.slice(0, -1);
    value = asciiJson(kept);
  }
  return value;
}
