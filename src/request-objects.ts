/**
 * The object-valued fields of a render request, each an object of known keys or a record of
 * checked names: the PDF's document information (`metadata`), the CSS media features to emulate,
 * and a `url` document's cookies. request.ts puts them among the request's fields.
 */
import { z } from 'zod';
import { optionalTextField } from './fields.js';

const metadataText = (description: string) => optionalTextField(1000, description).optional();

const metadataFields = {
  title: metadataText('the document title'),
  author: metadataText('the author'),
  subject: metadataText('the subject'),
  keywords: z
    .union([z.string().max(1000), z.array(z.string().max(200)).max(100)], {
      error: 'must be a string, or a list of at most 100 strings',
    })
    .optional()
    .transform((value) => (value === undefined ? undefined : typeof value === 'string' ? [value] : value)),
  creator: metadataText('the application that made the original document'),
  creationDate: z
    .union([z.iso.datetime({ offset: true, local: true }), z.iso.date()], {
      error: 'must be an ISO 8601 date such as "2026-11-23" or "2026-11-23T10:00:00Z"',
    })
    .optional()
    // A date and time without an offset is read as UTC, as a bare date is, not in the server's zone.
    .transform((value) => (value === undefined ? undefined : new Date(/T[^Z+-]*$/.test(value) ? `${value}Z` : value))),
};

/** An object of exactly `fields`: any other key is refused by name, as an unknown `noun`, with the known ones listed. */
function knownKeysObject<F extends z.ZodRawShape>(fields: F, noun: string) {
  return z
    .object(fields, {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? `has unknown ${issue.keys.length === 1 ? noun : `${noun}s`} ${issue.keys.map((key) => `"${key}"`).join(', ')}; known: ${Object.keys(fields).join(', ')}`
          : undefined,
    })
    .strict();
}

/** What `metadata` may hold; any other key is refused by name. */
export const metadataSchema = knownKeysObject(metadataFields, 'key');

/** Document information to write into the PDF. */
export type PdfMetadata = z.output<typeof metadataSchema>;

/** The CSS media features a document may be laid out for, each with the values CSS gives it (Chromium emulates these). */
export const mediaFeatureFields = {
  'prefers-color-scheme': z.enum(['light', 'dark']).optional(),
  'prefers-reduced-motion': z.enum(['no-preference', 'reduce']).optional(),
  'prefers-reduced-transparency': z.enum(['no-preference', 'reduce']).optional(),
  'prefers-contrast': z.enum(['no-preference', 'more', 'less', 'custom']).optional(),
  'forced-colors': z.enum(['none', 'active']).optional(),
  'color-gamut': z.enum(['srgb', 'p3', 'rec2020']).optional(),
};

export const mediaFeaturesSchema = knownKeysObject(mediaFeatureFields, 'feature');

/** The most cookies a request may set: a session needs a few. */
const maxCookies = 50;

/**
 * Cookies for a `url` document, by name: a cookie name is an HTTP token, a value cookie-octets
 * (RFC 6265), so neither can smuggle another attribute or header.
 */
export const cookiesSchema = z
  .record(
    z
      .string()
      .min(1)
      .max(256)
      .regex(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/, 'a cookie name must be an HTTP token'),
    z
      .string()
      .max(4096)
      .regex(
        /^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*$/,
        'a cookie value must be cookie-octets (no spaces, quotes, commas, semicolons or backslashes)',
      ),
  )
  .refine((cookies) => Object.keys(cookies).length <= maxCookies, `at most ${maxCookies} cookies`);

/** Media features to emulate, by name. */
export type MediaFeatures = z.output<typeof mediaFeaturesSchema>;
