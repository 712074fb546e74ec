/**
 * The request's `format` field: a paper size by name (A4, Letter...), as puppeteer's users write it
 * and as the CLI's --format takes it. It fills paperWidth and paperHeight where the request leaves
 * them out; one given as well that differs from the format is an error naming both, not a silent winner.
 */
import { z } from 'zod';
import { parseLength } from './length.js';
import { findPaperFormat, paperFormats, type PaperFormat } from './paper-formats.js';

const names = Object.keys(paperFormats) as PaperFormat[];

/** The format field: a name in any case, kept as paper-formats.ts spells it; null when absent. */
export const formatField = z
  .string({ error: `must be a paper format name: ${names.join(', ')}` })
  .transform((value, ctx): PaperFormat | null => {
    if (value.trim() === '') return null;
    const name = names.find((format) => format.toLowerCase() === value.trim().toLowerCase());
    if (name) return name;
    ctx.addIssue({
      code: 'custom',
      message: `must be one of ${names.join(', ')} (got ${JSON.stringify(value.slice(0, 100))})`,
      input: value,
    });
    return z.NEVER;
  })
  .nullish()
  .transform((value) => value ?? null)
  .describe(
    `paper size by name: ${names.join(', ')} (any case); sets paperWidth and paperHeight (either given as well must be the format's own size)`,
  );

// A field a form leaves unset arrives as "".
const absent = (value: unknown) => value === undefined || value === null || value === '';

/** Before parsing: the sizes of a known `format` stand in for the paperWidth and paperHeight the input leaves out. */
export function fillFormatSizes<T>(input: T): T {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const fields = input as Record<string, unknown>;
  const format = typeof fields.format === 'string' ? findPaperFormat(fields.format) : undefined;
  if (!format) return input;
  return {
    ...fields,
    ...(absent(fields.paperWidth) && { paperWidth: format.paperWidth }),
    ...(absent(fields.paperHeight) && { paperHeight: format.paperHeight }),
  } as T;
}

/** Run the format check only when the format and both sizes parsed. */
export const whenFormatParsed = {
  when: (payload: z.core.ParsePayload) =>
    !payload.issues.some(
      (issue) => !issue.path?.length || ['format', 'paperWidth', 'paperHeight'].includes(String(issue.path[0])),
    ),
};

/** A paperWidth or paperHeight given with a format must be the format's own: else both are named. */
export function checkFormat(
  request: { format: PaperFormat | null; paperWidth: number; paperHeight: number },
  ctx: z.RefinementCtx,
): void {
  if (request.format === null) return;
  const sizes = paperFormats[request.format];
  for (const [field, side] of [
    ['paperWidth', 'wide'],
    ['paperHeight', 'high'],
  ] as const) {
    const inches = parseLength(sizes[field]);
    if ('problem' in inches || Math.abs(inches.inches - request[field]) < 1e-6) continue;
    const message = `format ${request.format} (${sizes[field]} ${side}) and ${field} disagree: give format or ${field}, not both`;
    ctx.addIssue({ code: 'custom', path: ['format'], message });
    ctx.addIssue({ code: 'custom', path: [field], message });
  }
}
