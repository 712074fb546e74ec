/**
 * How `pdfrender render` runs (not what it renders): concurrency, deadline, browser. Validated by
 * zod like the request, so `--concurrency 0` or `--timeout soon` gets the same kind of message.
 */
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { describeFieldErrors, PdfRenderError } from '../errors.js';
import { durationField, numberField } from '../fields.js';
import { serveSettings } from '../config.js';
import { policySettings } from '../network/policy-settings.js';
import { parseWith } from '../request.js';

/** Run options and their help text. */
export const runOptionsSchema = z.object({
  concurrency: numberField({ min: 1, max: 64, integer: true })
    .optional()
    .describe(`documents rendered at once (default: the number of cores, ${availableParallelism()} here)`),
  timeout: durationField('30s').prefault('30s').describe('deadline for each document: seconds, or a duration such as 500ms or 2m (default 30s)'),
  maxPages: numberField({ min: 1, integer: true }).prefault(2000).describe('a document with more pages fails (default 2000)'),
  browserRecycleAfter: serveSettings.browserRecycleAfter.schema,
  browserHangTimeout: serveSettings.browserHangTimeout.schema,
  chrome: z.string().optional().describe('path to the Chromium or Chrome binary (default: PDFRENDER_CHROME, PUPPETEER_EXECUTABLE_PATH, then the system)'),
  ...(Object.fromEntries(Object.entries(policySettings).map(([key, setting]) => [key, setting.schema])) as {
    [K in keyof typeof policySettings]: (typeof policySettings)[K]['schema'];
  }),
});

/** The flag of each run option (commander syntax). */
export const runOptionFlags: Record<keyof typeof runOptionsSchema.shape, string> = {
  chrome: '--chrome <path>',
  timeout: '--timeout <duration>',
  maxPages: '--max-pages <n>',
  browserRecycleAfter: serveSettings.browserRecycleAfter.flag,
  browserHangTimeout: serveSettings.browserHangTimeout.flag,
  concurrency: '--concurrency <n>',
  ...(Object.fromEntries(Object.entries(policySettings).map(([key, setting]) => [key, setting.flag])) as { [K in keyof typeof policySettings]: string }),
};

export type RunOptions = z.output<typeof runOptionsSchema>;

/** Validate the run options (keyed by option name, as in runOptionsSchema). */
export function parseRunOptions(options: Record<string, unknown>): RunOptions {
  try {
    return parseWith(runOptionsSchema, Object.fromEntries(Object.keys(runOptionsSchema.shape).map((key) => [key, options[key]])));
  } catch (error) {
    if (!(error instanceof PdfRenderError) || !error.fieldErrors) throw error;
    // Name the flag behind each field (maxPages is --max-pages).
    const flag = (line: string) => {
      const name = line.slice(0, line.indexOf(':')) as keyof typeof runOptionFlags;
      return runOptionFlags[name] ? `${runOptionFlags[name].split(' ')[0]}${line.slice(line.indexOf(':'))}` : line;
    };
    throw new PdfRenderError('VALIDATION_FAILED', describeFieldErrors(error.fieldErrors).map(flag).join('\n'), {
      fieldErrors: error.fieldErrors,
    });
  }
}
