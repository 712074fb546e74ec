/**
 * Rendering a local HTML file from code as `pdfrender render` does: relative links resolve against
 * the file's folder, which (and below) it may load files from, on any engine (the engine's own rule
 * blocks every file: URL by default, for documents that come from others); header and footer files
 * resolve theirs against their own folders.
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PdfRenderError } from '../errors.js';
import { parseRenderRequest, type RenderRequestInput } from '../request.js';
import type { Engine, RenderOptions, RenderResult } from './engine.js';
import type { TemplateUrls } from './prepare-templates.js';

/** The files of a renderFile call besides the document: its templates, and more folders it may read. */
export interface RenderFileOptions extends Omit<RenderOptions, 'baseUrl' | 'documentUrl' | 'templateUrls' | 'files'> {
  /** HTML files for the header, the footer and page 1's own (relative to the current directory). */
  header?: string;
  footer?: string;
  firstPageHeader?: string;
  firstPageFooter?: string;
  /** Folders the document and its templates may load files from besides their own (the CLI's --assets-dir). */
  assetFolders?: string[];
}

// The request field each template file becomes.
const templateFields = {
  header: 'headerHtmlContent',
  footer: 'footerHtmlContent',
  firstPageHeader: 'firstPageHeaderHtmlContent',
  firstPageFooter: 'firstPageFooterHtmlContent',
} as const satisfies Record<keyof TemplateUrls, keyof RenderRequestInput>;

/**
 * Render the HTML file at `path` with the request's other `fields`, its folder readable as the CLI's
 * documents' are. A file that cannot be read is VALIDATION_FAILED naming it; the request's fields are
 * validated as parseRenderRequest does.
 */
export async function renderFile(
  engine: Engine,
  path: string,
  fields: Omit<RenderRequestInput, 'htmlContent' | 'url'> = {},
  options: RenderFileOptions = {},
): Promise<RenderResult> {
  const { header, footer, firstPageHeader, firstPageFooter, assetFolders = [], ...renderOptions } = options;
  const documentPath = resolve(path);
  const templateUrls: TemplateUrls = {};
  const templates: Record<string, string> = {};
  const files = { header, footer, firstPageHeader, firstPageFooter };
  for (const side of Object.keys(templateFields) as Array<keyof TemplateUrls>) {
    const file = files[side];
    if (file === undefined) continue;
    templates[templateFields[side]] = await readHtml(side, file);
    templateUrls[side] = pathToFileURL(resolve(file)).href;
  }
  const request = parseRenderRequest({ ...fields, ...templates, htmlContent: await readHtml('file', path) });
  return engine.render(request, {
    ...renderOptions,
    // The folder, as the CLI gives it: the base its documents' pages are wiped back to.
    baseUrl: pathToFileURL(`${dirname(documentPath)}${sep}`).href,
    documentUrl: pathToFileURL(documentPath).href,
    templateUrls,
    files: { documentFolder: true, folders: assetFolders },
  });
}

async function readHtml(field: string, path: string): Promise<string> {
  try {
    return await readFile(resolve(path), 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new PdfRenderError('VALIDATION_FAILED', `cannot read ${path}: ${reason}`, {
      fieldErrors: { [field]: [`cannot read ${path}: ${reason}`] },
      cause: error,
    });
  }
}
