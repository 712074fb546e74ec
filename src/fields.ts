/**
 * Building blocks for request and option schemas. Values arrive as strings from flags, form
 * fields and environment variables, so each field accepts its string form and turns it into a
 * typed value, with a message that says what was wrong.
 */
import { z } from 'zod';
import { templateFetches } from './markup/template-references.js';
import { parseLength } from './length.js';

/** A length in any CSS unit, parsed to inches (see length.ts). */
export function lengthField(description: string, fallback: string) {
  return z
    .union([z.number(), z.string()], { error: 'must be a number or a string such as "210mm"' })
    .transform((value, ctx) => {
      const parsed = parseLength(value);
      if ('problem' in parsed) {
        ctx.addIssue({ code: 'custom', message: parsed.problem, input: value });
        return z.NEVER;
      }
      return parsed.inches;
    })
    .prefault(fallback)
    .describe(`${description} (default ${fallback}; units pt, px, in, mm, cm, pc; no unit means inches)`);
}

const booleanWords: Record<string, boolean> = {
  true: true,
  false: false,
  '1': true,
  '0': false,
  on: true,
  off: false,
  yes: true,
  no: false,
};

/**
 * A boolean as form encoders and environment variables spell it: true/false, 1/0 (PHP), on/off
 * (HTML checkboxes) or yes/no, in any case, spaces around ignored; undefined for anything else.
 */
export function booleanWord(text: string): boolean | undefined {
  const key = text.trim().toLowerCase();
  return Object.hasOwn(booleanWords, key) ? booleanWords[key] : undefined;
}

/**
 * The JSON type a field takes from a typed client, where it also takes strings from a form (a
 * boolean's "on", a number's "1.5"): what the OpenAPI document's strict JSON request shows
 * (server/api/openapi-schema.ts).
 */
export const strictJsonTypes = new WeakMap<z.ZodType, 'boolean' | 'number'>();

// A boolean, a 1 or 0, or a word booleanWord reads; an empty string (a form's unset field) is `fallback`.
function booleanValue<F extends boolean | undefined>(fallback: F) {
  const accepted = 'must be true or false (or 1/0, on/off, yes/no)';
  const forms = z.union([z.boolean(), z.string(), z.number()], { error: accepted });
  strictJsonTypes.set(forms, 'boolean');
  return forms.transform((value, ctx): boolean | F => {
    if (typeof value === 'boolean') return value;
    if (typeof value === 'string' && value.trim() === '') return fallback;
    const word = booleanWord(String(value));
    if (word !== undefined) return word;
    ctx.addIssue({
      code: 'custom',
      message: `${accepted}; got ${typeof value === 'string' ? `"${value}"` : value}`,
      input: value,
    });
    return z.NEVER;
  });
}

/** A boolean, a 1 or 0, or a word booleanWord reads; absent or an empty string (a form's unset field) is `fallback`. */
export function booleanField(description: string, fallback = false) {
  return booleanValue(fallback).prefault(fallback).describe(`${description} (default ${fallback})`);
}

/** A boolean as booleanField reads it, left undefined when absent or empty, for a default that depends on other settings. */
export function optionalBooleanField(description: string) {
  return booleanValue(undefined).optional().describe(description);
}

export interface NumberBounds {
  /** Smallest allowed value, inclusive. */
  min?: number;
  /** Largest allowed value, inclusive. */
  max?: number;
  /** Values must be greater than this (for "positive"). */
  above?: number;
  integer?: boolean;
}

/** A number, or a numeric string, within bounds. */
export function numberField(bounds: NumberBounds) {
  const kind = bounds.integer ? 'whole number' : 'number';
  const forms = z.union([z.number(), z.string()], { error: `must be a ${kind}` });
  strictJsonTypes.set(forms, 'number');
  return forms.transform((value, ctx) => {
    const number = typeof value === 'number' ? value : value.trim() === '' ? NaN : Number(value);
    const problem = !Number.isFinite(number)
      ? `must be a ${kind} (got "${value}")`
      : bounds.integer && !Number.isInteger(number)
        ? `must be a whole number (got ${number})`
        : outOfBounds(number, bounds);
    if (problem) {
      ctx.addIssue({ code: 'custom', message: problem, input: value });
      return z.NEVER;
    }
    return number;
  });
}

function outOfBounds(number: number, { min, max, above }: NumberBounds): string | null {
  if (min !== undefined && max !== undefined && (number < min || number > max))
    return `must be between ${min} and ${max} (got ${number})`;
  if (min !== undefined && number < min) return `must be at least ${min} (got ${number})`;
  if (max !== undefined && number > max) return `must be at most ${max} (got ${number})`;
  if (above !== undefined && number <= above) return `must be greater than ${above} (got ${number})`;
  return null;
}

/**
 * The largest header or footer template, in characters. Chromium lays a template out again on
 * every page, so a huge one multiplies into every page of a long document.
 */
export const maxTemplateChars = 512 * 1024;

/** The most distinct images one header or footer template may reference (each is fetched and inlined). */
export const maxTemplateImages = 10;

/** The most distinct style sheets one header or footer template may reference (each is fetched and inlined). */
export const maxTemplateStylesheets = 10;

// HTML for a header or footer template, within the bounds on size and on what is inlined.
function templateHtml() {
  return z
    .string({ error: 'must be a string of HTML' })
    .max(maxTemplateChars, {
      error: (issue) =>
        `must be at most ${maxTemplateChars} characters (512 KiB); got ${(issue.input as string).length}`,
    })
    .superRefine((html, ctx) => {
      // One scan for both counts, and none of a template already refused for its size.
      if (html.length > maxTemplateChars) return;
      const { images, stylesheets } = templateFetches(html);
      if (images.size > maxTemplateImages)
        ctx.addIssue({
          code: 'custom',
          message: `references ${images.size} distinct images; at most ${maxTemplateImages} may be inlined`,
          input: html,
        });
      if (stylesheets.size > maxTemplateStylesheets)
        ctx.addIssue({
          code: 'custom',
          message: `references ${stylesheets.size} distinct style sheets; at most ${maxTemplateStylesheets} may be inlined`,
          input: html,
        });
    })
    .nullish();
}

/** Optional HTML for a header or footer; an empty string counts as none. */
export function optionalHtmlField(description: string) {
  return templateHtml()
    .transform((value) => (value ? value : null))
    .describe(description);
}

/** HTML that replaces a template on one page: null when not given, and an empty string (none there) kept apart from it. */
export function overrideHtmlField(description: string) {
  return templateHtml()
    .transform((value) => value ?? null)
    .describe(description);
}

const byteUnits: Record<string, number> = {
  '': 1,
  b: 1,
  kb: 1024,
  kib: 1024,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
};
const durationUnits: Record<string, number> = {
  ms: 1,
  s: 1000,
  '': 1000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** A quantity with a unit from `units` ("10mb", "24h"), as a number of base units; a bare number uses the '' unit. */
function unitField(units: Record<string, number>, example: string) {
  return z
    .union([z.number(), z.string()], { error: `must be a number or a string such as "${example}"` })
    .transform((value, ctx) => {
      // Trimmed first: \s* around an optional unit backtracks quadratically over a run of spaces.
      const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(String(value).trim());
      const unit = match?.[2]?.toLowerCase() ?? '';
      if (!match || !(unit in units) || Number(match[1]) <= 0) {
        ctx.addIssue({
          code: 'custom',
          message: `must be a positive amount such as "${example}" (units: ${Object.keys(units).filter(Boolean).join(', ')}); got "${value}"`,
          input: value,
        });
        return z.NEVER;
      }
      return Math.round(Number(match[1]) * units[unit]!);
    });
}

/** A size in bytes: a number, or "512kb", "10mb", "1gib" (binary multiples). */
export const byteSizeField = () => unitField(byteUnits, '10mb');
/** A duration in milliseconds: seconds as a bare number, or "500ms", "30s", "15m", "24h", "7d"; `example` is the one messages suggest (the setting's own default, say). */
export const durationField = (example = '30s') => unitField(durationUnits, example);
/** A short wait in milliseconds: milliseconds as a bare number (as puppeteer and Gotenberg callers send it), or "500ms", "2s". */
export const delayField = () => unitField({ ...durationUnits, '': 1 }, '500ms');

/** Optional text of at most `max` characters; an empty string counts as none. */
export function optionalTextField(max: number, description: string) {
  return z
    .string({ error: 'must be a string' })
    .max(max, { error: (issue) => `must be at most ${max} characters (got ${(issue.input as string).length})` })
    .nullish()
    .transform((value) => (value ? value : null))
    .describe(description);
}

/** The longest string of JSON a jsonObjectField parses: 64 KiB parses in a few milliseconds, nested or not. */
export const maxJsonTextChars = 64 * 1024;

/**
 * A value given as itself (JSON bodies, the CLI's request file) or as a string of JSON (a form
 * field, a CLI flag), checked against `schema` either way; `given` is its own shape (an object, a
 * list), `expected` what an error says it must be, `maxChars` the longest string of JSON parsed.
 */
export function jsonField<S extends z.ZodType>(
  given: z.ZodType,
  schema: S,
  expected: string,
  maxChars = maxJsonTextChars,
) {
  const field = z
    .union([given, z.string()], { error: expected })
    .transform((value, ctx): unknown => {
      if (typeof value !== 'string') return value;
      // Parsed on the event loop in one go: 10 MB of nested JSON in a form field stalled it for
      // seconds (issue 27 §5). Metadata, the one such object, is a few kilobytes.
      if (value.length > maxChars) {
        ctx.addIssue({
          code: 'custom',
          message: `must be at most ${maxChars} characters of JSON (got ${value.length})`,
          input: value.slice(0, 200),
        });
        return z.NEVER;
      }
      try {
        return JSON.parse(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: `${expected} (${(error as Error).message})`, input: value });
        return z.NEVER;
      }
    })
    .pipe(schema);
  jsonObjectShapes.set(field, schema);
  return field;
}

/** An object given as itself or as a string of JSON holding one (jsonField). */
export const jsonObjectField = <S extends z.ZodType>(schema: S) =>
  jsonField(z.record(z.string(), z.unknown()), schema, 'must be an object, or a string of JSON holding one');

/**
 * The object schema each jsonObjectField stands for: JSON Schema cannot read it off the union the
 * field parses with, so the OpenAPI document asks here to show the object's keys.
 */
export const jsonObjectShapes = new WeakMap<z.ZodType, z.ZodType>();
