/**
 * `--attach <file>` (repeatable): files embedded in the PDF as the request's `attachments`. After
 * the path, curl -F's way of saying more about a file: `invoice.xml;relationship=Data;type=text/xml;
 * description=The invoice data`. The file is read here, its name is its base name, its media type
 * by default the one its extension stands for (the request schema fills that in).
 */
import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { Option } from 'commander';
import { PdfRenderError } from '../../errors.js';
import { attachmentRelationships } from '../../request-attachments.js';

const keys = { relationship: 'relationship', type: 'mediaType', description: 'description' } as const;

/** The --attach option: repeatable, each value kept in order. */
export const attachOption = (): Option =>
  new Option(
    '--attach <file>',
    `embed this file in the PDF (repeatable); after its path, optionally ";relationship=" one of ${attachmentRelationships.join(', ')} (default Unspecified), ";type=" its media type (default from its extension), ";description=" a line about it, as in "data.xml;relationship=Data"; with --pdfa, PDF/A-3b`,
  ).argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);

/** The given path with what its `;key=value` parts say (split at each ";" that starts a known key). */
export function parseAttach(value: string): { path: string; fields: Record<string, string> } {
  const [path, ...parts] = value.split(/;(?=(?:relationship|type|description)=)/);
  const fields: Record<string, string> = {};
  for (const part of parts) {
    const equals = part.indexOf('=');
    fields[keys[part.slice(0, equals) as keyof typeof keys]] = part.slice(equals + 1);
  }
  return { path: path!, fields };
}

/** The `attachments` field the --attach values stand for, with each file read (relative to `cwd`). */
export async function attachmentsFromFlags(values: string[], cwd: string): Promise<Record<string, string>[]> {
  return Promise.all(
    values.map(async (value) => {
      const { path, fields } = parseAttach(value);
      let bytes: Buffer;
      try {
        bytes = await readFile(resolve(cwd, path));
      } catch (error) {
        throw new PdfRenderError(
          'USAGE',
          `--attach: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
          { cause: error },
        );
      }
      return { name: basename(path), content: bytes.toString('base64'), ...fields };
    }),
  );
}

/** The files --attach names, as given: what --watch watches. */
export const attachFiles = (values: unknown): string[] =>
  Array.isArray(values) ? values.map((value) => parseAttach(String(value)).path) : [];
