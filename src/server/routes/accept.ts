/**
 * Content negotiation for render-sync: JSON by default, the PDF itself when the caller prefers it.
 * Not hono/accepts: it breaks a tie by header order ("application/pdf, application/json" gives the
 * PDF; ours answers JSON unless the PDF ranks strictly above it) and never lets the all-types range
 * rank JSON ("application/pdf;q=0.5" beside it gives the PDF; here JSON, at q=1, wins).
 */

/** True when the Accept header ranks application/pdf above application/json. */
export function prefersPdf(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = accept.split(',').map((part) => {
    const [range = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return { range: range.trim(), q: q ? Number(q.slice(2)) : 1 };
  });
  // The most specific range that matches a type decides its quality, as RFC 9110 says.
  const quality = (type: string) => {
    const [major] = type.split('/');
    const match =
      ranges.find((r) => r.range === type) ??
      ranges.find((r) => r.range === `${major}/*`) ??
      ranges.find((r) => r.range === '*/*');
    return match && Number.isFinite(match.q) ? match.q : 0;
  };
  return quality('application/pdf') > quality('application/json');
}
