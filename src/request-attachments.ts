/**
 * A render request's `attachments`: files embedded in the PDF (its EmbeddedFiles name tree and the
 * catalog's AF array, engine/document/attachments.ts), each with the relationship PDF/A-3 asks a
 * file to state. The names become file names a reader saves to, so they are checked here: no
 * folders, no control characters, no two alike.
 */
import { extname } from 'node:path';
import { z } from 'zod';
import { jsonField, maxJsonTextChars } from './fields.js';
import { base64, base64Bytes, checkTotalBytes } from './request-assets.js';

/** How many files one request may attach. */
export const maxAttachments = 20;
/** The bytes of a request's attachments together, decoded (past it: 413). */
export const maxAttachmentBytes = 20 * 1024 * 1024;

/** The relationships PDF/A-3 (ISO 19005-3, AFRelationship) lets an attached file have to the document. */
export const attachmentRelationships = ['Data', 'Source', 'Alternative', 'Supplement', 'Unspecified'] as const;
export type AttachmentRelationship = (typeof attachmentRelationships)[number];

// What a reader would refuse or misplace as a file name: path separators, control characters, and
// names a file system reserves.
// eslint-disable-next-line no-control-regex
const badNameCharacters = /[/\\\u0000-\u001f\u007f]/;
const mediaTypeForm = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/;

/** Media types by file extension, for attachments that do not say theirs. */
const mediaTypes: Record<string, string> = {
  '.xml': 'text/xml',
  '.json': 'application/json',
  '.csv': 'text/csv',
  '.txt': 'text/plain',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.svg': 'image/svg+xml',
  '.zip': 'application/zip',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.odt': 'application/vnd.oasis.opendocument.text',
  '.ods': 'application/vnd.oasis.opendocument.spreadsheet',
};

/** The media type a file name's extension stands for; application/octet-stream for one not known. */
export const mediaTypeOf = (name: string): string =>
  mediaTypes[extname(name).toLowerCase()] ?? 'application/octet-stream';

const attachmentSchema = z
  .object(
    {
      name: z
        .string({ error: 'must be a string, the file name' })
        .min(1, 'must not be empty')
        .max(200, 'must be at most 200 characters')
        .refine((name) => !badNameCharacters.test(name), 'must be a file name: no "/", "\\" or control characters')
        .refine((name) => name !== '.' && name !== '..', 'must be a file name, not "." or ".."'),
      content: z
        .string({ error: 'must be the file as a string of base64' })
        .regex(base64, 'must be the file as base64 (A-Z, a-z, 0-9, "+", "/", "=" padding)'),
      mediaType: z
        .string({ error: 'must be a string' })
        .transform((type) => type.trim().toLowerCase())
        .refine((type) => mediaTypeForm.test(type), 'must be a media type such as "text/xml"')
        .nullish(),
      relationship: z
        .enum(attachmentRelationships, {
          error: (issue) => `must be one of ${attachmentRelationships.join(', ')} (got ${JSON.stringify(issue.input)})`,
        })
        .prefault('Unspecified'),
      description: z.string({ error: 'must be a string' }).max(1000, 'must be at most 1000 characters').nullish(),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? `has no field ${issue.keys.map((key) => `"${key}"`).join(', ')} (name, content, mediaType, relationship, description)`
          : 'must be an object with name and content',
    },
  )
  .strict()
  .transform(({ mediaType, description, ...attachment }) => ({
    ...attachment,
    mediaType: mediaType ?? mediaTypeOf(attachment.name),
    description: description ?? null,
  }));

/** One file to embed, as parsed: its media type filled in from its name where not given. */
export type Attachment = z.output<typeof attachmentSchema>;

/** `attachments`: a list of files, at most maxAttachments, names unique (ignoring case, as a folder saved to may). */
export const attachmentsSchema = z
  .array(attachmentSchema, { error: 'must be a list of files, or a string of JSON holding one' })
  .max(maxAttachments, `at most ${maxAttachments} files`)
  // Also when other entries are bad, so that every problem is named at once (zod skips a refinement
  // after any issue by default); an entry without a string name is left to its own message.
  .superRefine(
    (attachments, ctx) => {
      const seen = new Set<string>();
      for (const [index, entry] of attachments.entries()) {
        const name: unknown = (entry as { name?: unknown } | null)?.name;
        if (typeof name !== 'string') continue;
        if (seen.has(name.toLowerCase()))
          ctx.addIssue({ code: 'custom', path: [index, 'name'], message: `"${name}" is attached twice`, input: name });
        seen.add(name.toLowerCase());
      }
    },
    { when: (payload) => Array.isArray(payload.value) && payload.value.length <= maxAttachments },
  );

// Over a form or a flag the list is a string of JSON, as long as the files it may carry as base64.
const maxAttachmentJsonChars = Math.ceil((maxAttachmentBytes * 4) / 3) + maxJsonTextChars;

/** The `attachments` field: the list itself (JSON bodies, the CLI's request file) or a string of JSON holding it (a form field). */
export const attachmentsField = jsonField(
  z.array(z.unknown()),
  attachmentsSchema,
  'must be a list of files, or a string of JSON holding one',
  maxAttachmentJsonChars,
);

/** The decoded bytes of `attachments` together. */
export const attachmentBytes = (attachments: readonly { content: string }[]): number =>
  attachments.reduce((sum, { content }) => sum + base64Bytes(content), 0);

/** Refuse attachments over maxAttachmentBytes together (413), before a page is taken or a job queued. */
export const checkAttachmentBytes = (attachments: readonly { content: string }[]): void =>
  checkTotalBytes('attachments', attachmentBytes(attachments), maxAttachmentBytes);
