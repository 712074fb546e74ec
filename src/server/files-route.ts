/** GET /api/pdfs/files/:fileId: download a rendered PDF until its retention period ends. */
import type { Hono } from 'hono';
import { PdfRenderError } from '../errors.js';
import type { AppDeps } from './deps.js';

/** Mount the route on `app`. */
export function filesRoute(app: Hono<{ Variables: { apiKey: string | undefined } }>, deps: AppDeps): void {
  app.get('/api/pdfs/files/:fileId', async (c) => {
    const file = await deps.files.find(c.req.param('fileId'), deps.clock.now());
    const pdf = file ? await deps.files.read(file) : null;
    if (!file || !pdf) throw new PdfRenderError('NOT_FOUND', 'no such file, or its retention period has ended');
    c.header('Content-Type', 'application/pdf');
    c.header('Content-Disposition', `inline; filename="${file.id}.pdf"`);
    c.header('Cache-Control', 'private, max-age=0');
    return c.body(pdf as Uint8Array<ArrayBuffer>, 200);
  });
}
