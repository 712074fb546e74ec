/**
 * A render's header and footer templates, prepared before it takes a page: their images and style
 * sheets fetched, and the local files they were made of noted for a watch of the document's sources.
 */
import { fileURLToPath } from 'node:url';
import { raceAbort } from '../race.js';
import type { RenderRequest } from '../request.js';
import { deadlineSignal } from './deadline.js';
import type { RenderOptions } from './engine-types.js';
import { fileScope, widerAccess, type FileAccess } from './file-access.js';
import type { NetworkReport } from './network-report.js';
import type { Templates } from './pages/print-document.js';
import { prepareTemplates } from './prepare-templates.js';
import type { TemplateFonts } from './template-fonts.js';
import type { ResourceFetcher } from './templates/template-fetch.js';

/** What fetching a render's templates takes besides the request and its options. */
export interface TemplateFetch {
  fetcher: ResourceFetcher;
  /** The local files the engine's documents may load. */
  files: FileAccess;
  /** The URL the render's page resolves against (baseUrlOf). */
  baseUrl: string;
  /** The render's deadline, which the fetches get one as long as of their own. */
  limitMs: number;
  callerSignal: AbortSignal;
  warnings: string[];
  templateIssues: NetworkReport;
}

const isString = (value: unknown): value is string => typeof value === 'string';

/** Prepare the request's templates, and the local files they were made of. */
export async function fetchTemplates(
  request: RenderRequest,
  renderOptions: RenderOptions,
  { fetcher, files, baseUrl, limitMs, callerSignal, warnings, templateIssues }: TemplateFetch,
): Promise<{ templates: Templates & { fonts: TemplateFonts }; templateFiles: string[] }> {
  // Template resources are fetched before taking a page, so slow servers never hold one; they get
  // a deadline of their own, as long as the render's.
  const fetching = deadlineSignal(limitMs);
  // The local files the templates were made of (a header's logo, its style sheet), beside the page's own.
  const templateFiles: string[] = [];
  const recording: ResourceFetcher = async (url, ...rest) => {
    const fetched = await fetcher(url, ...rest);
    if (url.protocol === 'file:') templateFiles.push(fileURLToPath(url));
    return fetched;
  };
  // The templates read what the document may read, and files from their own folders.
  const templateUrls = renderOptions.templateUrls ?? {};
  const templateScope = fileScope(
    widerAccess(files, renderOptions.files),
    baseUrl,
    Object.values(templateUrls).filter(isString),
  );
  const templates = await raceAbort(
    prepareTemplates(
      request,
      { baseUrl, templateUrls, files: templateScope },
      recording,
      AbortSignal.any([fetching.signal, callerSignal]),
      warnings,
      templateIssues,
    ),
    callerSignal,
  ).finally(fetching.clear);
  return { templates, templateFiles };
}
