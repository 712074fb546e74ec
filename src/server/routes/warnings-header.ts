/** The X-Pdfrender-Warnings header of render-sync and render-async answers. */
import type { Context } from 'hono';

/** X-Pdfrender-Warnings: the warnings joined by "; ", printable ASCII (anything else, a URL with non-Latin letters, becomes "?"), at most 4000 characters. */
export function setWarningsHeader(c: Context, warnings: string[]): void {
  if (warnings.length > 0)
    c.header(
      'X-Pdfrender-Warnings',
      warnings
        .join('; ')
        .replace(/[^\x20-\x7e]/g, '?')
        .slice(0, 4000),
    );
}
