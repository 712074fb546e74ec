/**
 * The failOn rules applied to a render's report: the first rule (in the order of problemKinds) that
 * finds its kind of problem fails the render as RENDER_PDF_FAILED, naming the rule and the first
 * offenders, and carrying the whole report for the caller.
 */
import { PdfRenderError } from '../../errors.js';
import { problemKinds, type ProblemKind } from '../../fail-on-rules.js';
import { problemLines, type RenderReport } from './render-report.js';

/** Throw when a rule of `rules` finds its problem in `report`; `setting` names where the rules came from. */
export function failOnProblems(report: RenderReport, rules: readonly ProblemKind[], setting: string): void {
  if (rules.length === 0) return;
  const lines = problemLines(report);
  const broken = problemKinds.filter((kind) => rules.includes(kind) && lines[kind]);
  if (broken.length === 0) return;
  throw new PdfRenderError(
    'RENDER_PDF_FAILED',
    `the document failed ${broken.map((kind) => `failOn ${kind}`).join(', ')} (${setting}): ${broken.map((kind) => lines[kind]).join('; ')}`,
    { report, documentFault: true },
  );
}
