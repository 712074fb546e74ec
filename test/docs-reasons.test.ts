/**
 * The table of blocked and failed URLs' codes in docs/http-api.md ("Errors and blocked URLs") is the
 * list pdfrender reports: every code of the report's schema has a row, no row names a code it never
 * reports, and the connection failures' rows give the very reasons the report says.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { failureCodes } from '../src/engine/network-report.js';
import { connectionFailure, connectionFailureCodes } from '../src/network/connection-failure.js';
import { refusalCodes } from '../src/network/refusal.js';
import { root } from './support/markdown.js';

/** The rows of the table under `| code | reason | when |`: code and reason, as written. */
function reasonRows(): Array<{ code: string; reason: string }> {
  const lines = readFileSync(join(root, 'docs/http-api.md'), 'utf8').split('\n');
  const start = lines.indexOf('| code | reason | when |');
  expect(start, 'the table of codes in docs/http-api.md').toBeGreaterThan(0);
  const rows: Array<{ code: string; reason: string }> = [];
  for (const line of lines.slice(start + 2)) {
    const cells = /^\| `([A-Z_]+)` \| (.*?) \| /.exec(line);
    if (!cells) break;
    rows.push({ code: cells[1]!, reason: cells[2]! });
  }
  return rows;
}

describe('docs/http-api.md: the codes of blocked and failed URLs', () => {
  it('has a row for every code the report may carry, and none other', () => {
    expect(reasonRows().map((row) => row.code)).toEqual([...refusalCodes, ...failureCodes]);
  });

  it('gives the reason a connection refused, reset or not answered is reported with', () => {
    const rows = new Map(reasonRows().map((row) => [row.code, row.reason]));
    for (const code of connectionFailureCodes) expect(rows.get(code), code).toBe(connectionFailure(code).reason);
  });
});
