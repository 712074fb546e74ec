#!/usr/bin/env node
/**
 * Writes fixtures/report/report.html and its figures: a 50-page report with PNG and SVG figures
 * and a web font loaded by @font-face from the fixture's own folder (fonts/, copied from Debian's
 * DejaVu package with its licence, is not generated). The output is committed (the bench needs no network
 * and no generator run); this script is kept so the fixture can be changed and rebuilt the same way.
 * Deterministic: a seeded generator (lib/report-document.mjs), so a rebuild gives the same bytes.
 *
 * usage: node bench/make-report-fixture.mjs
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { reportDocument } from './lib/report-document.mjs';

const out = resolve(import.meta.dirname, '../fixtures/report');
const pages = 50;
const { html, figures } = reportDocument(pages);
await mkdir(join(out, 'images'), { recursive: true });
for (const [name, bytes] of Object.entries(figures)) await writeFile(join(out, name), bytes);
await writeFile(join(out, 'report.html'), html);
console.log(`wrote ${join(out, 'report.html')} (${pages} sections) and ${Object.keys(figures).length} figures`);
