/**
 * The settings of how documents render, shared by `pdfrender serve` (server/config.ts, each with its
 * PDFRENDER_* twin) and `pdfrender render` (cli/run-options.ts): flag syntax, environment twin,
 * schema with help text. Apart from serve's other settings so that a render builds these few schemas
 * rather than all of serve's (350 of a cold CLI render's 1,135 before they were apart).
 */
import { availableParallelism, totalmem } from 'node:os';
import { z } from 'zod';
import { byteSizeField, durationField, numberField } from './fields.js';

/** A setting of serve's (or of a command sharing it): its flag, its environment twin, its schema. */
export interface Setting {
  /** Commander flag syntax. */
  flag: string;
  /** The environment variable that stands in for the flag. */
  env: string;
  schema: z.ZodType;
  /** Help for a --no-<flag> twin, for a switch whose default can be on. */
  negation?: string;
}

/** A flag's name without its argument: "--max-pages <n>" is --max-pages. */
export function flagName(flag: string): string {
  return flag.split(' ')[0]!;
}

/** The least --max-render-memory accepted. */
const minRenderMemory = 64 * 2 ** 20;

/** How documents render: at once, for how long, how large, in which browser. */
export const renderSettings = {
  concurrency: {
    flag: '--concurrency <n>',
    env: 'PDFRENDER_CONCURRENCY',
    schema: numberField({ min: 1, max: 64, integer: true })
      .prefault(availableParallelism())
      .describe(`documents rendered at once (default: the number of cores, ${availableParallelism()} here)`),
  },
  timeout: {
    flag: '--timeout <duration>',
    env: 'PDFRENDER_TIMEOUT',
    schema: durationField('30s')
      .prefault('30s')
      .describe('deadline for each document: seconds, or a duration such as 500ms or 2m (default 30s)'),
  },
  maxPages: {
    flag: '--max-pages <n>',
    env: 'PDFRENDER_MAX_PAGES',
    schema: numberField({ min: 1, integer: true })
      .prefault(2000)
      .describe('a document with more pages fails to render (default 2000)'),
  },
  maxRenderMemory: {
    flag: '--max-render-memory <size>',
    env: 'PDFRENDER_MAX_RENDER_MEMORY',
    schema: byteSizeField()
      // A renderer holds about 16 MB with nothing in it: below this every render would be stopped.
      .refine((bytes) => bytes >= minRenderMemory, {
        error: 'must be at least 64MB (a renderer with no document holds about 16MB)',
      })
      .optional()
      .describe(
        `memory the renderers of the documents rendering at once may use together ("6GB", "512MB", bytes); past it the largest is stopped: alone over it, it fails; beside others, it is refused with 503 to try again (default: a quarter of the machine's memory, ${Math.round(totalmem() / 4 / 2 ** 20)}MB here)`,
      ),
  },
  browserRecycleAfter: {
    flag: '--browser-recycle-after <n>',
    env: 'PDFRENDER_BROWSER_RECYCLE_AFTER',
    schema: numberField({ min: 1, integer: true })
      .prefault(2000)
      .describe('documents one browser renders before a fresh one takes over (default 2000)'),
  },
  browserHangTimeout: {
    flag: '--browser-hang-timeout <duration>',
    env: 'PDFRENDER_BROWSER_HANG_TIMEOUT',
    schema: durationField('5s')
      .prefault('5s')
      .describe(
        'a browser that leaves a DevTools ping unanswered this long without working (stopped, deadlocked), or six times as long working, is killed and replaced, and its renders tried once more; a long document does not count (default 5s)',
      ),
  },
  chrome: {
    flag: '--chrome <path>',
    env: 'PDFRENDER_CHROME',
    schema: z
      .string()
      .optional()
      .describe(
        'path to the Chromium or Chrome binary (default: PDFRENDER_CHROME, PUPPETEER_EXECUTABLE_PATH, then the system)',
      ),
  },
} satisfies Record<string, Setting>;
