/**
 * How `pdfrender render` runs (not what it renders): concurrency, deadline, browser. Validated by
 * zod like the request, so `--concurrency 0` or `--timeout soon` gets the same kind of message.
 */
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { describeFieldErrors, PdfRenderError } from '../errors.js';
import { durationField, numberField } from '../fields.js';
import { parseWith } from '../request.js';

/** Run options and their help text. */
export const runOptionsSchema = z.object({
  concurrency: numberField({ min: 1, max: 64, integer: true })
    .optional()
    .describe(`documents rendered at once (default: the number of cores, ${availableParallelism()} here)`),
  timeout: durationField().prefault('30s').describe('deadline for each document: seconds, or a duration such as 500ms or 2m (default 30s)'),
  maxPages: numberField({ min: 1, integer: true }).prefault(2000).describe('a document with more pages fails (default 2000)'),
  chrome: z.string().optional().describe('path to the Chromium or Chrome binary (default: PDFRENDER_CHROME, PUPPETEER_EXECUTABLE_PATH, then the system)'),
});

export type RunOptions = z.output<typeof runOptionsSchema>;

/** Validate the run options among commander's parsed options. */
export function parseRunOptions(options: Record<string, unknown>): RunOptions {
  try {
    return parseWith(runOptionsSchema, { concurrency: options.concurrency, timeout: options.timeout, maxPages: options.maxPages, chrome: options.chrome });
  } catch (error) {
    if (!(error instanceof PdfRenderError) || !error.fieldErrors) throw error;
    // Each of these fields is a flag of the same name (maxPages is --max-pages).
    const flag = (line: string) => `--${line.replace(/^[a-z]+[A-Z][^:]*/, (name) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`))}`;
    throw new PdfRenderError('VALIDATION_FAILED', describeFieldErrors(error.fieldErrors).map(flag).join('\n'), {
      fieldErrors: error.fieldErrors,
    });
  }
}
