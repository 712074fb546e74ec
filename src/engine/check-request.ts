/** The check of a request against what an engine with given options can render, before a page is taken. */
import { throwFieldErrors } from '../schema-parse.js';
import { type FieldErrors } from '../errors.js';
import { pageRangesOf } from '../page-ranges.js';
import { checkAttachmentBytes } from '../request-attachments.js';
import type { RenderRequest } from '../request.js';
import { checkAssets } from './asset-folder.js';
import { checkFacturX } from './document/factur-x.js';
import { defaultMaxPages, optionNames, type EngineOptions } from './engine-types.js';

/**
 * Refuse, as VALIDATION_FAILED, what an engine with these options cannot do for a request that is
 * valid on its face: a wait on the page's script where documents' JavaScript is off.
 */
export function checkRequest(
  request: RenderRequest,
  options: Pick<EngineOptions, 'javascript' | 'maxPages' | 'settingNames'>,
): void {
  const names = { ...optionNames, ...options.settingNames };
  const fieldErrors: FieldErrors = {};
  if (options.javascript === false && request.waitForExpression)
    fieldErrors.waitForExpression = [`needs the documents' JavaScript, which is off here (${names.javascript})`];
  const maxPages = options.maxPages ?? defaultMaxPages;
  const beyond = pageRangesOf(request.pageRanges)?.find((range) => range.first > maxPages);
  if (beyond)
    fieldErrors.pageRanges = [`asks for page ${beyond.first}, past the page limit of ${maxPages} (${names.maxPages})`];
  throwFieldErrors(fieldErrors);
  // Sizes and names no folder can hold, refused before a page is taken (and before a job is queued).
  if (request.assets) checkAssets(request.assets);
  if (request.attachments) checkAttachmentBytes(request.attachments);
  checkFacturX(request);
}
