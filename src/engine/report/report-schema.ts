/**
 * The preflight report every render returns beside its PDF, as one zod schema: its type, the API's
 * OpenAPI schema, and what the tests parse answers with. What builds and reads a report
 * (render-report.ts and the checks beside it) imports only the type, so a render builds none of
 * these schemas (127 of them, about a tenth of a cold CLI render's module start).
 */
import { z } from 'zod';
import { problemKinds } from '../../fail-on-rules.js';
import { refusalCodes } from '../../network/refusal.js';
import { failureCodes } from '../network-report.js';

const count = (description: string) => z.int().min(0).describe(description);

/** A URL the document asked for and did not get, with a reason safe for any caller. */
export const resourceIssueSchema = z.strictObject({
  url: z.string(),
  code: z.enum([...refusalCodes, ...failureCodes]),
  reason: z.string().describe('why, e.g. "HTTP 404", "net::ERR_NAME_NOT_RESOLVED" or the network policy\'s reason'),
});

/** Where in the document a character occurs. */
export const placeSchema = z.enum(['body', 'header', 'footer']);
export type Place = z.infer<typeof placeSchema>;

export const missingGlyphsSchema = z.strictObject({
  script: z.string().describe('the Unicode script of the characters, e.g. "Han", "Devanagari", "Private use"'),
  count: count('distinct characters of this script drawn as an empty box (.notdef)'),
  characters: z.string().describe('the first few distinct characters, in the order found'),
  where: z.array(placeSchema).describe('where they occur: the body, the header, the footer'),
});

export const failedFontSchema = z.strictObject({
  family: z.string().describe('the @font-face family that failed'),
  reason: z.string(),
});

export const brokenImageSchema = z.strictObject({
  url: z.string(),
  selector: z.string().describe('a CSS selector of the <img>'),
  reason: z.string(),
});

export const scriptErrorSchema = z.strictObject({
  kind: z.enum(['exception', 'console.error']),
  message: z.string().describe('first line, truncated to 300 characters'),
});

export const overflowSchema = z.strictObject({
  selector: z.string().describe('a CSS selector of the outermost element that runs past the right edge'),
  right: count('where the element ends, in CSS pixels from the left edge of the printable area'),
  printableWidth: count('the printable width, in CSS pixels'),
  cutOff: z
    .boolean()
    .describe(
      'true: wider than Chromium shrinks a page to fit (1.5 times the printable width), so what runs past the edge is cut off; false: the whole page is printed smaller to fit it',
    ),
});

export const accessibilitySchema = z.strictObject({
  tagged: z.boolean().describe("the PDF is tagged (the request's tagged, on by default)"),
  pdfua: z.boolean().describe('the PDF carries the PDF/UA-1 identification in its XMP metadata: tagged, with a title'),
  missing: z
    .array(z.enum(['title', 'lang']))
    .describe(
      'what a tagged PDF lacks that PDF/UA asks for: a title (<title> or metadata.title; without one the PDF does not claim PDF/UA), a language (<html lang> or lang)',
    ),
});

export const renderReportSchema = z
  .strictObject({
    missingGlyphs: z.array(missingGlyphsSchema).describe('characters no available font could draw, by script'),
    fonts: z.strictObject({
      used: z.array(z.string()).describe('the fonts the PDF draws its text with (PostScript names)'),
      failed: z.array(failedFontSchema).describe('@font-face rules whose font did not load'),
    }),
    resources: z.strictObject({
      blocked: z.array(resourceIssueSchema).describe('URLs the network policy refused'),
      failed: z.array(resourceIssueSchema).describe('URLs that failed to load'),
      brokenImages: z.array(brokenImageSchema).describe('images that loaded but could not be shown'),
    }),
    scriptErrors: z.strictObject({
      count: count("uncaught exceptions and console.error calls of the document's own script"),
      more: z.boolean().describe('more errors happened than the messages listed (the first ten are kept)'),
      messages: z.array(scriptErrorSchema).describe('the first ten'),
    }),
    overflow: z
      .array(overflowSchema)
      .describe('elements wider than the printable width: the page shrunk to fit them, or cut off at its right edge'),
    accessibility: accessibilitySchema,
    unchecked: z
      .array(
        z.strictObject({
          kind: z.enum(problemKinds),
          reason: z.string(),
        }),
      )
      .describe(
        'kinds of problem that could not be looked for in this render, and why (a PDF too large to read, a page that did not answer): a failOn rule of that kind fails the render rather than pass it unchecked',
      ),
    pageReferences: z
      .strictObject({
        passes: z
          .int()
          .min(1)
          .describe('how many times the document was printed to settle its page numbers (at most 3)'),
        settled: z
          .boolean()
          .describe('false: the last numbers written still moved a target to another page, so some may be one off'),
        unresolved: z
          .array(z.string())
          .describe(
            'targets (as written, e.g. "#appendix") with no element in the document, or none printed; shown as "??"',
          ),
      })
      .optional()
      .describe(
        'target-counter(..., page) references written in (docs/page-references.md); absent when the CSS has none',
      ),
    timings: z.strictObject({
      loadMs: count('loading the document and its resources'),
      waitMs: count("the request's waits (waitForSelector, waitForExpression, waitForNetworkIdle, waitDelay)"),
      printMs: count("Chromium's printToPDF"),
      reportMs: count("this report's own checks"),
    }),
  })
  .describe('what did not go as the document asked, and how long each step took');
export type RenderReport = z.infer<typeof renderReportSchema>;
