/**
 * The flags of `pdfrender render` that are its own (where the PDFs go, --request, --watch, how it
 * reports), declared as settings: help, types and validation from one zod schema each, beside the
 * request flags (request-flags.ts) and the run options (run-options.ts).
 */
import { z } from 'zod';
import { flagSet } from '../flag-set.js';

// A switch commander sets to true when given; absent is off.
const onOff = (help: string) => z.boolean().default(false).describe(help);
const path = (help: string) => z.string().optional().describe(help);

/** Render's own flags, in the order help lists them (see renderCommand for where the others go). */
export const renderFlags = flagSet(
  {
    output: { flag: '-o, --output <file>', schema: path('the PDF for a single input (- for standard output)') },
    outDir: {
      flag: '--out-dir <dir>',
      schema: path('folder for the PDFs of many inputs (each named after its input)'),
    },
    keepFolders: {
      flag: '--keep-folders',
      schema: onOff(
        "with --out-dir, keep each input's folder (below the inputs' common folder), so inputs of the same name stay apart",
      ),
    },
    request: {
      flag: '--request <file.json>',
      // Collected, so that a second one is refused by name rather than silently replacing the first.
      schema: z
        .array(z.string())
        .superRefine((files, ctx) => {
          if (files.length > 1)
            ctx.addIssue({
              code: 'custom',
              message: `given ${files.length} times (${files.join(', ')}): a run takes one request file; run pdfrender once per request file`,
            });
        })
        .transform((files) => files[0])
        .optional()
        .describe('a JSON file in the HTTP API request shape; flags override its fields'),
    },
    watch: {
      flag: '--watch',
      schema: onOff(
        'render again whenever an input, a header or footer file, the --request file or a local file the documents loaded changes (Ctrl-C stops)',
      ),
    },
    assetsDir: {
      flag: '--assets-dir <dir>',
      schema: z
        .array(z.string())
        .default([])
        .describe(
          'a folder the documents and their headers and footers may load files from, as from their own folder (repeatable)',
        ),
    },
    json: {
      flag: '--json',
      schema: onOff(
        'print a JSON summary (per document: output, pages, bytes, ms, blocked and failed URLs, error) on standard output',
      ),
    },
    quiet: { flag: '-q, --quiet', schema: onOff('print only errors') },
  },
  { repeatable: ['assetsDir', 'request'] },
);

export type RenderFlags = z.output<typeof renderFlags.schema>;

/**
 * The program's flags (program.ts declares them) as render reads them: absent is undefined, so that
 * without --color or --no-color the environment decides (color.ts).
 */
export const globalFlagValues = z.object({ debug: z.boolean().optional(), color: z.boolean().optional() });
