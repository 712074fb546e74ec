/**
 * Attachments uploaded as multipart `attachments` file parts: each becomes an entry of the request's
 * `attachments` list (its file name, its bytes as base64, its part's media type), so the request
 * schema checks it as it checks one sent as JSON. A form may also send an `attachments` field of
 * JSON entries: one without content gives the relationship and description of the uploaded file of
 * its name, as curl's -F cannot say them.
 */

/** One uploaded file. */
export interface UploadedAttachment {
  name: string;
  content: string;
  /** The part's Content-Type, left out where it says only "some bytes". */
  mediaType?: string;
}

/** The part's media type worth keeping: a form sends application/octet-stream for a file it knows nothing of. */
export const partMediaType = (type: string): string | undefined => {
  const plain = type.split(';')[0]!.trim().toLowerCase();
  return plain === '' || plain === 'application/octet-stream' ? undefined : plain;
};

/** `fields.attachments` with the uploads merged in; a problem is added to `problems.attachments`. */
export function mergeAttachmentUploads(
  fields: Record<string, unknown>,
  uploads: UploadedAttachment[],
  problems: Record<string, string[]>,
): void {
  if (uploads.length === 0) return;
  const given = fields.attachments;
  let entries: unknown[] = [];
  if (typeof given === 'string') {
    try {
      const parsed: unknown = JSON.parse(given);
      if (Array.isArray(parsed)) entries = parsed;
      else (problems.attachments ??= []).push('must be a string of JSON holding a list of files');
    } catch (error) {
      (problems.attachments ??= []).push(
        `must be a string of JSON holding a list of files (${(error as Error).message})`,
      );
    }
  } else if (given !== undefined)
    (problems.attachments ??= []).push('send one attachments field of JSON beside the uploaded files');
  const byName = new Map(uploads.map((upload) => [upload.name, upload]));
  const described = entries.map((entry) => {
    if (typeof entry !== 'object' || entry === null || 'content' in entry) return entry;
    const upload = byName.get(String((entry as { name?: unknown }).name));
    if (!upload) return entry; // the schema says its content is missing
    byName.delete(upload.name);
    return { mediaType: upload.mediaType, ...entry, content: upload.content };
  });
  fields.attachments = [...described, ...byName.values()];
}
