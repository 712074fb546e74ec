/**
 * How `pdfrender render` runs (not what it renders): concurrency, deadline, browser. The same
 * settings as serve's (schema, help and flag), so `--concurrency 0` or `--timeout soon` gets the
 * same message either way; the CLI reads no environment twins.
 */
import { z } from 'zod';
import { PdfRenderError, labelFieldErrors } from '../errors.js';
import { flagName, serveSettings } from '../server/config.js';
import { policySettings } from '../network/policy-settings.js';
import { parseWith } from '../request.js';

const runSettings = {
  concurrency: serveSettings.concurrency,
  timeout: serveSettings.timeout,
  maxPages: serveSettings.maxPages,
  browserRecycleAfter: serveSettings.browserRecycleAfter,
  browserHangTimeout: serveSettings.browserHangTimeout,
  chrome: serveSettings.chrome,
  ...policySettings,
};

type RunSettings = typeof runSettings;

/** Run options and their help text. */
export const runOptionsSchema = z.object(
  Object.fromEntries(Object.entries(runSettings).map(([key, setting]) => [key, setting.schema])) as {
    [K in keyof RunSettings]: RunSettings[K]['schema'];
  },
);

/** The flag of each run option (commander syntax). */
export const runOptionFlags = Object.fromEntries(
  Object.entries(runSettings).map(([key, setting]) => [key, setting.flag]),
) as Record<keyof RunSettings, string>;

export type RunOptions = z.output<typeof runOptionsSchema>;

/** Validate the run options (keyed by option name, as in runOptionsSchema). */
export function parseRunOptions(options: Record<string, unknown>): RunOptions {
  try {
    return parseWith(
      runOptionsSchema,
      Object.fromEntries(Object.keys(runOptionsSchema.shape).map((key) => [key, options[key]])),
    );
  } catch (error) {
    if (!(error instanceof PdfRenderError) || !error.fieldErrors) throw error;
    // Name the flag behind each field (maxPages is --max-pages).
    throw labelFieldErrors(error.fieldErrors, (field) =>
      field in runOptionFlags ? flagName(runOptionFlags[field as keyof RunSettings]) : undefined,
    );
  }
}
