/**
 * The pages curve's documents, written for a page count: the report (lib/report-document.mjs,
 * one section a page, beside the fixture's fonts and figures) and one long table (a single
 * <table> whose rows run over every page, which Chromium lays out as one block: its memory grows
 * much faster with pages than the report's).
 */
import { cp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { reportDocument } from './report-document.mjs';

/**
 * Rows of the long table on its first Letter page at 0.39 in margins, and on each further page.
 * Measured: the first page holds 42 rows, each further one 43 (rows do not split, so there is no
 * drift); 40 then 43 a page print as exactly N pages for any N (checked at 1, 2, 10 and 100).
 */
const firstPageRows = 40;
const rowsPerPage = 43;

/** The long table's HTML for `pages` pages: a header row Chromium repeats on each page, then fixed-height rows. */
export function longTableHtml(pages) {
  const rows = [];
  for (let i = 0; i < Math.floor(firstPageRows + (pages - 1) * rowsPerPage); i += 1)
    rows.push(
      `<tr><td>${i + 1}</td><td>Item ${(i * 7919) % 100_000} of the ledger, booked</td><td class="num">${((i * 104_729) % 1_000_000) / 100}</td><td class="num">${(i % 23) - 11}</td></tr>`,
    );
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Ledger, ${pages} pages</title>
  <style>
    body { font-family: sans-serif; font-size: 10pt; margin: 0; }
    table { width: 100%; border-collapse: collapse; }
    th, td { height: 16pt; padding: 0 4pt; border-bottom: 0.5pt solid #cbd2d9; text-align: left; }
    .num { text-align: right; }
  </style>
</head>
<body>
<table>
<thead><tr><th>#</th><th>Entry</th><th class="num">Amount</th><th class="num">Change</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
</body>
</html>
`;
}

/**
 * Write the `kind` ('report' or 'long table') document of `pages` pages into `dir` (the report's
 * fonts and figures copied there once) and return its path.
 */
export async function curveDocument(root, dir, kind, pages) {
  if (kind === 'report') {
    await cp(join(root, 'fixtures/report'), dir, { recursive: true, force: false, errorOnExist: false });
    const file = join(dir, `report-${pages}.html`);
    await writeFile(file, reportDocument(pages).html);
    return file;
  }
  const file = join(dir, `long-table-${pages}.html`);
  await writeFile(file, longTableHtml(pages));
  return file;
}
