/**
 * Request bodies in the three encodings RenderPDF.io clients send: JSON, multipart/form-data
 * (where the HTML fields may be uploaded files, and the document's own files come as `assets`
 * parts) and application/x-www-form-urlencoded.
 * A body that cannot be decoded is the caller's mistake: 422 with `errors.body`, never a 500. A body
 * too complex to parse without stalling the server (body-shape.ts) is a 413, refused before parsing.
 */
import type { Context } from 'hono';
import { PdfRenderError } from '../../errors.js';
import type { RequestParseOptions } from '../../request.js';
import type { ServeConfig } from '../config.js';
import { mergeAttachmentUploads, partMediaType, type UploadedAttachment } from './attachment-parts.js';
import { checkJsonShape, checkMultipartParts, checkUrlEncodedFields } from './body-shape.js';

/** The body as a plain object of fields, ready for the request schema. */
export async function readBody(c: Context): Promise<unknown> {
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json' || type.endsWith('+json')) {
    const text = await bodyText(c);
    checkJsonShape(text);
    try {
      return JSON.parse(text);
    } catch (error) {
      throw bodyError(`is not valid JSON: ${(error as Error).message}`);
    }
  }
  if (type === 'application/x-www-form-urlencoded') {
    const text = await bodyText(c);
    checkUrlEncodedFields(text);
    return fieldsOf(parseUrlEncoded(text));
  }
  if (type === 'multipart/form-data') {
    const contentType = c.req.header('content-type')!;
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    checkMultipartParts(bytes, contentType);
    let form: FormData;
    try {
      form = await new Response(bytes, { headers: { 'Content-Type': contentType } }).formData();
    } catch {
      // undici says only "Failed to parse body as FormData"; say what usually causes it.
      throw bodyError(
        'is not valid multipart/form-data: check that the Content-Type has the boundary the body uses (let your HTTP client set it)',
      );
    }
    const parts: Array<[string, FormDataEntryValue]> = [];
    form.forEach((value, name) => parts.push([name, value]));
    const entries: Array<[string, string]> = [];
    const problems: Record<string, string[]> = {};
    // Files uploaded as `assets` parts (Gotenberg's way: the document's files beside it), by their
    // file names, as the request's `assets` field has them (base64), and checked by its rules.
    // A Map, so that a file named __proto__ is a name like any other (and refused by the name check).
    const assets = new Map<string, string>();
    const attachments: UploadedAttachment[] = [];
    for (const [name, value] of parts) {
      if (name === 'attachments' && typeof value !== 'string') {
        if (attachments.some((upload) => upload.name === value.name))
          (problems.attachments ??= []).push(`"${value.name}" is uploaded twice`);
        else
          attachments.push({
            name: value.name,
            content: Buffer.from(await value.arrayBuffer()).toString('base64'),
            mediaType: partMediaType(value.type),
          });
        continue;
      }
      if (name === 'assets' && typeof value !== 'string') {
        if (assets.has(value.name)) (problems.assets ??= []).push(`"${value.name}" is uploaded twice`);
        else assets.set(value.name, Buffer.from(await value.arrayBuffer()).toString('base64'));
        continue;
      }
      // An uploaded file is decoded as strictly as a JSON body.
      const text = typeof value === 'string' ? value : utf8(await value.arrayBuffer());
      if (text === undefined) (problems[name] ??= []).push('is an uploaded file that is not valid UTF-8 text');
      else entries.push([name, text]);
    }
    const fields = fieldsOf(entries);
    if (assets.size > 0) {
      if (Object.hasOwn(fields, 'assets'))
        (problems.assets ??= []).push('send the assets as uploaded files or as one string of JSON, not both');
      fields.assets = Object.fromEntries(assets);
    }
    mergeAttachmentUploads(fields, attachments, problems);
    if (Object.keys(problems).length > 0)
      throw new PdfRenderError('VALIDATION_FAILED', 'an uploaded file cannot be read as sent', {
        fieldErrors: problems,
      });
    return fields;
  }
  throw new PdfRenderError(
    'UNSUPPORTED_MEDIA_TYPE',
    `send the request as application/json, multipart/form-data or application/x-www-form-urlencoded${type ? `, not ${type}` : ' (no Content-Type was given)'}`,
  );
}

/** Fields from name/value pairs; a field sent twice is kept as a list, which the schema then rejects by name. */
function fieldsOf(entries: Iterable<[string, string]>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [name, value] of entries) {
    // Assigning "__proto__" on a plain object would replace its prototype (with a list sent twice);
    // it is no request field, so it is dropped like any other unknown name.
    if (name === '__proto__') continue;
    const previous = Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (previous === undefined) fields[name] = value;
    else if (Array.isArray(previous)) previous.push(value);
    else fields[name] = [previous, value];
  }
  return fields;
}

/**
 * Strict application/x-www-form-urlencoded: URLSearchParams would quietly keep a bad "%" escape
 * and turn undecodable bytes into U+FFFD, so a mangled document would render as if all was well.
 */
function parseUrlEncoded(text: string): Array<[string, string]> {
  const decode = (part: string) => {
    try {
      return decodeURIComponent(part.replace(/\+/g, ' '));
    } catch {
      throw bodyError(
        `is not valid application/x-www-form-urlencoded: "${part.slice(0, 40)}" has a "%" that is not followed by two hex digits, or escapes that are not UTF-8; percent-encode each value (curl --data-urlencode)`,
      );
    }
  };
  return text
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const equals = pair.indexOf('=');
      return equals === -1 ? [decode(pair), ''] : [decode(pair.slice(0, equals)), decode(pair.slice(equals + 1))];
    });
}

/** The whole body as text; 422 when it is not UTF-8. */
async function bodyText(c: Context): Promise<string> {
  const text = utf8(await c.req.arrayBuffer());
  if (text === undefined) throw bodyError('is not valid UTF-8: send the body encoded as UTF-8');
  return text;
}

/** Decode UTF-8, or undefined for bytes that are not UTF-8 (rather than replacing them with U+FFFD). */
function utf8(bytes: ArrayBuffer): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** A 422 about the body as a whole, reported as the field `body`. */
function bodyError(message: string): PdfRenderError {
  return new PdfRenderError('VALIDATION_FAILED', `the body ${message}`, { fieldErrors: { body: [message] } });
}

/** How a render body's unknown fields are treated: refused (422), or with --allow-unknown-fields ignored, each a line in `warnings`. */
export function unknownFieldsRule(
  config: Pick<ServeConfig, 'allowUnknownFields'>,
  warnings: string[],
): RequestParseOptions {
  return { unknownFields: config.allowUnknownFields ? 'warn' : 'reject', warnings };
}
