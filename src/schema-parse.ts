/**
 * Parsing with a zod schema the way every edge reports it: VALIDATION_FAILED naming each bad field
 * (`{field: [messages]}`), and for render requests each unknown field too (unknown-fields.ts).
 */
import type { z } from 'zod';
import { labelFieldErrors, PdfRenderError, type FieldErrors } from './errors.js';
import { unknownFieldErrors, unknownFieldWarnings } from './unknown-fields.js';

/**
 * Every parse here takes zod's generic parser, not the one zod writes with `new Function` for each
 * object shape on its first parse: that compile fell outside the CLI bundle's code cache and cost a
 * cold render ~3 ms of CPU, where a request parses in ~15 µs either way (measured warm).
 */
const parseContext = { jitless: true } as const;

/** Turn zod's issues into `{field: [messages]}`; problems with the whole body go under "request". */
export function fieldErrorsOf(error: z.ZodError): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of error.issues) {
    const field = issue.path.length > 0 ? issue.path.join('.') : 'request';
    const message = issue.path.length > 0 ? issue.message : `must be an object of request fields (${issue.message})`;
    (errors[field] ??= []).push(message);
  }
  return errors;
}

/** Throw VALIDATION_FAILED for `fieldErrors`; nothing when there are none. */
export function throwFieldErrors(fieldErrors: FieldErrors): void {
  const count = Object.keys(fieldErrors).length;
  if (count > 0)
    throw new PdfRenderError(
      'VALIDATION_FAILED',
      `invalid request: ${count} field${count === 1 ? '' : 's'} failed validation`,
      { fieldErrors },
    );
}

/** Parse with `schema` or throw a VALIDATION_FAILED error naming every bad field. */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input, parseContext);
  if (result.success) return result.data;
  throwFieldErrors(fieldErrorsOf(result.error));
  throw new Error('unreachable: a failed parse has issues');
}

/** Parse one value that `label` names (a flag): a bad one is VALIDATION_FAILED, a line per problem naming it. */
export function parseNamed<S extends z.ZodType>(schema: S, value: unknown, label: string): z.output<S> {
  const result = schema.safeParse(value, parseContext);
  if (result.success) return result.data;
  throw labelFieldErrors({ [label]: result.error.issues.map((issue) => issue.message) }, () => undefined);
}

/** How a request's parse treats names it does not know. */
export interface RequestParseOptions {
  /** 'reject' (the default): VALIDATION_FAILED naming each, with the field it is nearest to; 'warn': ignored, with a line each in `warnings`. */
  unknownFields?: 'reject' | 'warn';
  /** Where the lines of ignored unknown fields go. */
  warnings?: string[];
}

// Requests parseRequest returned: the engine renders them without parsing again (isParsedRequest).
const parsed = new WeakSet<object>();

/** Parse a request object with `schema`, whose field names are `known`: every bad value and every unknown name in one VALIDATION_FAILED. */
export function parseRequest<S extends z.ZodType>(
  schema: S,
  known: readonly string[],
  input: unknown,
  options: RequestParseOptions = {},
): z.output<S> {
  let unknown = unknownFieldErrors(input, known);
  if (options.unknownFields === 'warn') {
    options.warnings?.push(...unknownFieldWarnings(unknown));
    unknown = {};
  }
  const result = schema.safeParse(input, parseContext);
  throwFieldErrors({ ...unknown, ...(result.success ? {} : fieldErrorsOf(result.error)) });
  const request = result.data as z.output<S>;
  parsed.add(request as object);
  return request;
}

/** `request`, a copy of a parsed request that only pdfrender changed, marked as parsed. */
export function markParsed<T extends object>(request: T): T {
  parsed.add(request);
  return request;
}

/** True for an object parseRequest returned: already validated, with its defaults applied. */
export function isParsedRequest(request: unknown): boolean {
  return typeof request === 'object' && request !== null && parsed.has(request);
}
