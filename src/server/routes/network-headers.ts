/**
 * The sync response's report of blocked and failed URLs, in headers, so that it reaches callers
 * who asked for the PDF bytes themselves: a JSON array of {url, code, reason}, in ASCII, kept under a
 * size proxies accept; the count header says how many there were in all.
 */
import type { Context } from 'hono';
import type { NetworkReport } from '../../engine/network-report.js';

const maxHeaderChars = 4000;

/** Set X-Pdfrender-Blocked(-Count) and X-Pdfrender-Failed(-Count) when there is anything to report. */
export function setNetworkHeaders(c: Context, report: NetworkReport): void {
  for (const [name, issues] of [
    ['Blocked', report.blocked],
    ['Failed', report.failed],
  ] as const) {
    if (issues.length === 0) continue;
    c.header(`X-Pdfrender-${name}-Count`, String(issues.length));
    c.header(`X-Pdfrender-${name}`, asciiJson(issues));
  }
}

// As many entries as fit, JSON with every non-ASCII character escaped (header values must be ASCII).
function asciiJson(issues: NetworkReport['blocked']): string {
  const encode = (list: NetworkReport['blocked']) =>
    JSON.stringify(list).replace(/[^\x20-\x7e]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  let kept = issues.map((issue) => ({
    url: issue.url.slice(0, 500),
    code: issue.code,
    reason: issue.reason.slice(0, 300),
  }));
  let value = encode(kept);
  while (value.length > maxHeaderChars && kept.length > 1) {
    kept = kept.slice(0, -1);
    value = encode(kept);
  }
  return value;
}
