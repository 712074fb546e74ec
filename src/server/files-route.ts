/** GET /api/pdfs/files/:fileId: download a rendered PDF until its retention period ends. */
import { readFile } from 'node:fs/promises';
import type { Hono } from 'hono';
import { PdfRenderError } from '../errors.js';
import type { AppDeps } from './deps.js';

/** Mount the route on `app`. */
export function filesRoute(app: Hono<{ Variables: { apiKey: string | undefined } }>, deps: AppDeps): void {
  app.get('/api/pdfs/files/:fileId', async (c) => {
    const file = deps.files.find(c.req.param('fileId'), deps.clock.now());
    const pdf = file ? await readFile(file.path).catch(() => null) : null;
    if (!file || !pdf) throw new PdfRenderError('NOT_FOUND', 'no such file, or its retention period has ended');
    c.header('Content-Type', 'application/pdf');
    c.header('Content-Disposition', `inline; filename="${file.id}.pdf"`);
    c.header('Cache-Control', 'private, max-age=0');
    return c.body(pdf, 200);
  });
}
