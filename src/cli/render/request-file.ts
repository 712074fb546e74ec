/**
 * The render request of `pdfrender render` as its inputs give it: the --request JSON file read, and
 * a request validated by the one schema with each bad field named by what set it (a flag, or the
 * request file).
 */
import { readFile } from 'node:fs/promises';
import { PdfRenderError, labelFieldErrors } from '../../errors.js';
import { fillFormatSizes } from '../../paper-format-field.js';
import { parseRenderRequest, type RenderRequest } from '../../request.js';

/** The request fields a --request file holds: a JSON object, or a clear error naming the file. */
export async function readRequestFile(path: string): Promise<Record<string, unknown>> {
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (error) {
    throw new PdfRenderError(
      'USAGE',
      `--request: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw new PdfRenderError('VALIDATION_FAILED', `--request: ${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new PdfRenderError('VALIDATION_FAILED', `--request: ${path} must hold a JSON object of request fields`);
  }
  return parsed as Record<string, unknown>;
}

/**
 * The request file's fields under the flags': flags override its fields, and a flag that sets the
 * page size (--format, --paper-width, --paper-height) overrides the file's format too, whose sizes
 * stay for the side the flags leave, rather than disagreeing with it (an unknown name is left for
 * the schema to report).
 */
export function underFlags(fromFile: Record<string, unknown>, flags: Record<string, unknown>): Record<string, unknown> {
  const sizeFlag = ['format', 'paperWidth', 'paperHeight'].some((field) => field in flags);
  const filled = sizeFlag ? fillFormatSizes(fromFile) : fromFile;
  if (filled === fromFile) return { ...fromFile, ...flags };
  const { format: _, ...sizes } = filled;
  return { ...sizes, ...flags };
}

/** Parse a request and check it against what the engine can do; on failure the error's lines name the flag (or the request file) behind each field. */
export function validate(
  input: Record<string, unknown>,
  sources: Record<string, string>,
  requestFile: string | undefined,
  check: (request: RenderRequest) => void,
) {
  try {
    const request = parseRenderRequest(input);
    check(request);
    return request;
  } catch (error) {
    if (!(error instanceof PdfRenderError) || !error.fieldErrors) throw error;
    // A nested field (metadata.title) is named by the flag that set its top field (--metadata); a
    // shorthand such as --margin sets four fields, and one bad value is one line, not four.
    throw labelFieldErrors(error.fieldErrors, (field) => fieldLabel(field, sources[field.split('.')[0]!], requestFile));
  }
}

// The flag that set the field ("--scale", "--margin"), or "scale in req.json" from the file.
function fieldLabel(field: string, flag: string | undefined, requestFile: string | undefined): string {
  // "--metadata creationDate" for a key inside the flag's value.
  if (flag) return field.includes('.') ? `${flag} ${field.slice(field.indexOf('.') + 1)}` : flag;
  if (requestFile && field !== 'htmlContent' && field !== 'url') return `${field} in ${requestFile}`;
  return field;
}
