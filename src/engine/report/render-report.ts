/**
 * The preflight report every render returns beside its PDF: what did not go as the document asked
 * (characters no font could draw, fonts that failed, resources that did not load, script errors,
 * content wider than the page) and how long each step took. Its type comes from its zod schema
 * (report-schema.ts); this file is what reads and makes reports. Everything in one is safe for the
 * caller the document belongs to (the operator's detail stays in ResourceIssue.detail, never in
 * here) and bounded.
 */
import { PdfRenderError } from '../../errors.js';
import type { ProblemKind } from '../../fail-on-rules.js';
import type { RenderReport } from './report-schema.js';

/** The kinds of problem a report can hold, as failOn names them (fail-on-rules.ts). */
export { problemKinds, type ProblemKind } from '../../fail-on-rules.js';
export type { Place, RenderReport } from './report-schema.js';

/** The report a failed render carries (a failOn rule failed it), if any. */
export function reportOf(error: unknown): RenderReport | undefined {
  return error instanceof PdfRenderError ? (error.report as RenderReport | undefined) : undefined;
}

// The bounds of one report: a document that throws a million errors or draws a million boxes gets
// a report of a few kilobytes.
export const reportBounds = {
  scripts: 20,
  charactersPerScript: 10,
  fonts: 50,
  failedFonts: 20,
  brokenImages: 20,
  scriptErrors: 20,
  scriptMessages: 10,
  messageChars: 300,
  overflow: 10,
} as const;

/** An empty report (no problem found, nothing timed). */
export function emptyReport(): RenderReport {
  return {
    missingGlyphs: [],
    fonts: { used: [], failed: [] },
    resources: { blocked: [], failed: [], brokenImages: [] },
    scriptErrors: { count: 0, more: false, messages: [] },
    overflow: [],
    accessibility: { tagged: false, pdfua: false, missing: [] },
    unchecked: [],
    timings: { loadMs: 0, waitMs: 0, printMs: 0, reportMs: 0 },
  };
}

/** The problems of each kind a report holds, counted. */
export function problemCounts(report: RenderReport): Record<ProblemKind, number> {
  const { resources } = report;
  return {
    missingGlyphs: report.missingGlyphs.reduce((sum, group) => sum + group.count, 0),
    resourceErrors:
      resources.blocked.length + resources.failed.length + resources.brokenImages.length + report.fonts.failed.length,
    scriptErrors: report.scriptErrors.count,
    overflow: report.overflow.length,
  };
}

/**
 * One line per kind of problem the report holds, each naming the first offenders: for the CLI's
 * warnings and for a failOn rule's message.
 */
export function problemLines(report: RenderReport): Partial<Record<ProblemKind, string>> {
  const counts = problemCounts(report);
  const lines: Partial<Record<ProblemKind, string>> = {};
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (counts.missingGlyphs > 0)
    lines.missingGlyphs = `${plural(counts.missingGlyphs, 'character')} no font could draw (${report.missingGlyphs
      .slice(0, 3)
      .map(
        (group) =>
          `${group.script} ${group.count}: ${group.characters} in the ${group.where.join(' and ') || 'document'}`,
      )
      .join('; ')})`;
  if (counts.resourceErrors > 0) {
    const { blocked, failed, brokenImages } = report.resources;
    const first = [
      ...failed.map((issue) => `${issue.url} (${issue.reason})`),
      ...blocked.map((issue) => `${issue.url} (blocked: ${issue.reason})`),
      ...brokenImages.map((image) => `image ${image.url} (${image.reason})`),
      ...report.fonts.failed.map((font) => `font ${font.family} (${font.reason})`),
    ];
    lines.resourceErrors = `${plural(counts.resourceErrors, 'resource')} did not load: ${first.slice(0, 3).join(', ')}`;
  }
  if (counts.scriptErrors > 0)
    lines.scriptErrors = `${plural(counts.scriptErrors, 'script error')}: ${report.scriptErrors.messages
      .slice(0, 2)
      .map((error) => `${error.kind === 'exception' ? 'uncaught' : 'console.error'}: ${error.message}`)
      .join('; ')}`;
  if (counts.overflow > 0)
    lines.overflow = `${plural(counts.overflow, 'element')} wider than the printable width of ${report.overflow[0]!.printableWidth} px: ${report.overflow
      .slice(0, 3)
      .map(
        (element) =>
          `${element.selector} (ends at ${element.right} px: ${element.cutOff ? 'cut off' : 'page shrunk to fit'})`,
      )
      .join(', ')}`;
  // A kind that could not be looked for is said as such: never as if it had been found clean.
  for (const { kind, reason } of report.unchecked) lines[kind] ??= `${uncheckedNames[kind]} not checked: ${reason}`;
  return lines;
}

const uncheckedNames: Record<ProblemKind, string> = {
  missingGlyphs: 'missing glyphs',
  resourceErrors: 'broken images and web fonts',
  scriptErrors: 'script errors',
  overflow: 'overflow',
};
