/**
 * How `pdfrender render` runs (not what it renders): concurrency, deadline, browser. The same
 * settings as serve's (schema, help and flag), so `--concurrency 0` or `--timeout soon` gets the
 * same message either way; the CLI reads no environment twins.
 */
import { totalmem } from 'node:os';
import type { z } from 'zod';
import { policySettings } from '../network/policy-settings.js';
import { renderSettings } from '../render-settings.js';
import { flagSet } from './flag-set.js';

const runSettings = { ...renderSettings, ...policySettings };

// Where a setting shared with serve means something else here (the CLI reads no environment twins).
const renderHelp: Partial<Record<keyof typeof runSettings, string>> = {
  allowPrivateNetwork: 'accepted for symmetry with serve: the CLI reaches loopback and private addresses anyway (on)',
  maxRenderMemory: `memory the renderers of the documents rendering at once may use together ("6GB", "512MB", bytes); past it the largest is stopped: alone over it, it fails; beside others, it renders again once they are done (default: a quarter of the machine's memory, ${Math.round(totalmem() / 4 / 2 ** 20)}MB here)`,
};

/** The run options: their schema, their commander options and their typed values. */
export const runFlags = flagSet(runSettings, {
  help: (key, description) => renderHelp[key] ?? description.replace(/ \(env: [^)]*\)/, ''),
  repeatable: ['allowHosts'],
});

export type RunOptions = z.output<typeof runFlags.schema>;

/** Validate the run options (keyed by option name, as in runSettings); a bad one names its flag. */
export const parseRunOptions: (options: Record<string, unknown>) => RunOptions = runFlags.parse;
