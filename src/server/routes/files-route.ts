/**
 * GET /api/pdfs/files/:fileId: download a rendered PDF until its retention period ends. RenderPDF.io
 * calls fileUrl a downloadable URL and its clients fetch it with no credentials, so unless
 * --private-files it needs no API key: its id is 128 random bits, the URL itself is the capability.
 * With --private-files it needs the key whose render made it.
 */
import type { Context, Hono } from 'hono';
import { PdfRenderError } from '../../errors.js';
import type { AppDeps } from '../deps.js';
import { viewerOf } from '../edge/caller.js';

/** The path of a file download, as it is routed. */
export const filePath = /^\/api\/pdfs\/files\/[^/]+$/;

/** True for a download of a file (GET, or the HEAD Hono answers with it): open to anyone holding its URL unless --private-files. */
export const isFileDownload = (c: Context) =>
  (c.req.method === 'GET' || c.req.method === 'HEAD') && filePath.test(c.req.path);

/** Mount the route on `app`. */
export function filesRoute(app: Hono<{ Variables: { apiKey: string | undefined } }>, deps: AppDeps): void {
  app.get('/api/pdfs/files/:fileId', async (c) => {
    const found = await deps.files.find(c.req.param('fileId'), deps.clock.now());
    // With --private-files a download carries a key, and another key's file is not there (404).
    const viewer = viewerOf(c, deps.config);
    const file = found && (viewer === undefined || found.owner === viewer) ? found : null;
    const pdf = file ? await deps.files.read(file) : null;
    if (!file || !pdf) throw new PdfRenderError('NOT_FOUND', 'no such file, or its retention period has ended');
    c.header('Content-Type', 'application/pdf');
    c.header('Content-Disposition', `inline; filename="${file.id}.pdf"`);
    c.header('Cache-Control', 'private, max-age=0');
    // The URL is the credential: links followed from the PDF do not pass it on, and it is not indexed.
    c.header('Referrer-Policy', 'no-referrer');
    c.header('X-Robots-Tag', 'noindex');
    return c.body(pdf as Uint8Array<ArrayBuffer>, 200);
  });
}
