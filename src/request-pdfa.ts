/**
 * A render request's `pdfa`: the PDF/A level the PDF is finished to (engine/document/pdfa.ts), and
 * the rule that ties it to `attachments`: PDF/A-2 admits only embedded files that are PDF/A
 * themselves, which pdfrender cannot vouch for, so attachments need PDF/A-3.
 */
import { z } from 'zod';

/** The PDF/A levels pdfrender writes: part 2 or 3, conformance B (the look of the pages is kept; no Unicode or tagging promised). */
export const pdfaLevels = ['PDF/A-2b', 'PDF/A-3b'] as const;
export type PdfaLevel = (typeof pdfaLevels)[number];

const levelsText = pdfaLevels.map((level) => `"${level}"`).join(' or ');

/** The `pdfa` field: a level, written in any case ("pdf/a-3b"), or null for a plain PDF. */
export const pdfaField = z
  .preprocess(
    (value) =>
      typeof value === 'string'
        ? (pdfaLevels.find((level) => level.toLowerCase() === value.trim().toLowerCase()) ?? value)
        : value,
    z.enum(pdfaLevels, {
      error: (issue) =>
        typeof issue.input === 'string'
          ? `must be ${levelsText} (got ${JSON.stringify(issue.input.slice(0, 40))})`
          : `must be ${levelsText}`,
    }),
  )
  .nullish()
  .transform((value) => value ?? null);

// Judged on what was sent, so it is reported with every other bad field.
const sentNone = (value: unknown) =>
  value === undefined || value === null || (Array.isArray(value) && value.length === 0) || value === '[]';

/** Attachments go with PDF/A-3b or no PDF/A: a 422 under both fields otherwise. */
export function checkPdfaAttachments(sent: { pdfa?: unknown; attachments?: unknown }, ctx: z.RefinementCtx): void {
  if (typeof sent.pdfa !== 'string' || sent.pdfa.trim().toLowerCase() !== 'pdf/a-2b' || sentNone(sent.attachments))
    return;
  const message =
    'PDF/A-2b cannot carry attachments (PDF/A-2 embeds only files that are PDF/A themselves): ask for pdfa "PDF/A-3b" with attachments';
  ctx.addIssue({ code: 'custom', path: ['pdfa'], message, input: sent.pdfa });
  ctx.addIssue({ code: 'custom', path: ['attachments'], message, input: '' });
}
