/**
 * The failOn rules: each kind of problem a render's preflight report can hold
 * (engine/report/render-report.ts) that a caller can turn from a warning into a failure, and the
 * request field that names them. Given as a list, or over a form or a flag as names separated by
 * commas, camelCase or kebab-case ("missing-glyphs" is missingGlyphs).
 */
import { z } from 'zod';

/** The kinds of problem, as failOn names them. */
export const problemKinds = ['missingGlyphs', 'resourceErrors', 'scriptErrors', 'overflow'] as const;
export type ProblemKind = (typeof problemKinds)[number];

/** What each rule fails a render on. */
export const problemMeanings: Record<ProblemKind, string> = {
  missingGlyphs: 'a character no available font could draw (an empty box in the PDF)',
  resourceErrors:
    'a subresource that failed (a network error or an HTTP status of 400 or more), was blocked, an image that could not be shown, or a web font that did not load',
  scriptErrors: "an uncaught exception, unhandled promise rejection or console.error of the document's own script",
  overflow: 'an element wider than the printable width (the page shrunk to fit it, or it cut off at the right edge)',
};

const camel = (name: string) => name.trim().replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());

/** The failOn field: null when not given (the engine's default rules apply), a list (maybe empty) when given. */
export const failOnField = z
  .union([z.array(z.string()), z.string()], {
    error: `must be a list of rules (${problemKinds.join(', ')}), or a string of them separated by commas`,
  })
  .transform((value) => (typeof value === 'string' ? value.split(',') : value).map(camel).filter((name) => name !== ''))
  // Judged as a whole, so an error names the field (failOn, --fail-on) rather than an item of it.
  .superRefine((names, ctx) => {
    const unknown = names.filter((name) => !(problemKinds as readonly string[]).includes(name));
    if (unknown.length > 0)
      ctx.addIssue({
        code: 'custom',
        message: `unknown rule${unknown.length === 1 ? '' : 's'} ${unknown.map((name) => JSON.stringify(name)).join(', ')}: the rules are ${problemKinds.join(', ')}`,
      });
  })
  .transform((names) => [...new Set(names)] as ProblemKind[])
  .nullish()
  .transform((value) => value ?? null);
