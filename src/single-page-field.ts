/**
 * The request's singlePage: the whole document on one page as tall as its content (the engine
 * measures it, engine/pages/single-page.ts). Fields about several pages, or about a page size other
 * than the content's, do not go with it.
 */
import type { z } from 'zod';
import { booleanField } from './fields.js';

/** The singlePage field. */
export const singlePageField = booleanField(
  'print the whole document on one page as tall as its content, at the paper width (the paper height with landscape) and margins, its forced page breaks ignored; not with pageRanges or preferCssPageSize',
);

/** Refuse, naming the other field, what means nothing on one page sized to its content. */
export function checkSinglePage(
  sent: { singlePage?: unknown; pageRanges?: unknown; preferCssPageSize?: unknown },
  ctx: z.RefinementCtx,
): void {
  if (sent.singlePage !== true) return;
  if (typeof sent.pageRanges === 'string' && sent.pageRanges !== '')
    ctx.addIssue({
      code: 'custom',
      path: ['pageRanges'],
      message: 'does not go with singlePage, which prints the whole document as one page',
      input: sent.pageRanges,
    });
  if (sent.preferCssPageSize === true)
    ctx.addIssue({
      code: 'custom',
      path: ['preferCssPageSize'],
      message: "does not go with singlePage, whose page is the content's size rather than a CSS @page size",
      input: sent.preferCssPageSize,
    });
}
