/**
 * A render's report, put together once its page is back in the pool: what printDocument read from
 * the page, the URLs that did not load, and what only the PDF can tell (the fonts it draws with,
 * the characters it draws as empty boxes). Then the request's failOn rules (fail-on.ts) judge it.
 */
import { performance } from 'node:perf_hooks';
import type { RenderRequest } from '../../request.js';
import { publicReport, type NetworkReport } from '../network-report.js';
import type { Observed } from '../pages/print-document.js';
import { glyphCandidates, missingGlyphs, type Coverage } from './missing-glyphs.js';
import { pdfFontNames } from './pdf-fonts.js';
import type { RenderReport } from './render-report.js';

/** The report of a printed document; `signal` (the render's deadline) ends the checks that read the PDF. */
export async function assembleReport(
  request: RenderRequest,
  pdf: Uint8Array,
  observed: Observed,
  network: NetworkReport,
  coverage: Coverage,
  accessibility: RenderReport['accessibility'],
  signal?: AbortSignal,
): Promise<RenderReport> {
  const started = performance.now();
  const unchecked: RenderReport['unchecked'] = [];
  const inspection = observed.inspection ?? {
    characters: '',
    brokenImages: [],
    failedFonts: [],
    overflow: [],
    lang: '',
  };
  if (!observed.inspection) {
    const reason = 'the page did not answer when it was read after the print';
    unchecked.push(...(['missingGlyphs', 'resourceErrors', 'overflow'] as const).map((kind) => ({ kind, reason })));
  }
  const templates = (fields: Array<string | null>) => fields.filter((html): html is string => Boolean(html));
  const candidates = await glyphCandidates(
    {
      body: [inspection.characters],
      header: templates([request.headerHtmlContent, request.firstPageHeaderHtmlContent]),
      footer: templates([request.footerHtmlContent, request.firstPageFooterHtmlContent]),
    },
    coverage,
  );
  const glyphs = await missingGlyphs(pdf, candidates, signal);
  if ('unchecked' in glyphs && observed.inspection) unchecked.push({ kind: 'missingGlyphs', reason: glyphs.unchecked });
  const resources = publicReport(network);
  // An image whose URL failed is reported once, as the URL that failed.
  const reported = new Set([...resources.blocked, ...resources.failed].map((issue) => issue.url));
  const report: RenderReport = {
    missingGlyphs: 'missing' in glyphs ? glyphs.missing : [],
    fonts: { used: pdfFontNames(pdf), failed: inspection.failedFonts },
    resources: { ...resources, brokenImages: inspection.brokenImages.filter((image) => !reported.has(image.url)) },
    scriptErrors: observed.scriptErrors,
    overflow: inspection.overflow,
    accessibility,
    unchecked,
    ...(observed.pageReferences && { pageReferences: observed.pageReferences }),
    timings: observed.timings,
  };
  report.timings = { ...report.timings, reportMs: report.timings.reportMs + Math.round(performance.now() - started) };
  return report;
}
