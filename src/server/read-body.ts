/**
 * Request bodies in the three encodings RenderPDF.io clients send: JSON, multipart/form-data
 * (where the HTML fields may be uploaded files) and application/x-www-form-urlencoded.
 */
import type { Context } from 'hono';
import { PdfRenderError } from '../errors.js';

/** The body as a plain object of fields, ready for the request schema. */
export async function readBody(c: Context): Promise<unknown> {
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json' || type.endsWith('+json')) {
    const text = await c.req.text();
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new PdfRenderError('VALIDATION_FAILED', 'the body is not valid JSON', {
        fieldErrors: { body: [`is not valid JSON: ${(error as Error).message}`] },
      });
    }
  }
  if (type === 'multipart/form-data' || type === 'application/x-www-form-urlencoded') {
    const form = await c.req.parseBody({ all: true });
    const fields: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(form)) {
      // A field sent twice is kept as a list, which the schema then rejects with the field's name.
      const values = Array.isArray(value) ? value : [value];
      const texts = await Promise.all(values.map((v) => (typeof v === 'string' ? v : v.text())));
      fields[name] = texts.length === 1 ? texts[0] : texts;
    }
    return fields;
  }
  throw new PdfRenderError(
    'UNSUPPORTED_MEDIA_TYPE',
    `send the request as application/json, multipart/form-data or application/x-www-form-urlencoded${type ? `, not ${type}` : ' (no Content-Type was given)'}`,
  );
}
