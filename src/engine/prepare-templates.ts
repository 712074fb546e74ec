/**
 * A request's header and footer templates, made ready before the render takes a page (so a slow
 * server never holds one): their images, style sheets and fonts inlined under the request's bounds,
 * Chromium's defaults applied, page 1's own where the request has them. What was left out is said
 * in `warnings` and reported in `issues`.
 */
import type { RenderRequest } from '../request.js';
import type { FileScope } from './file-access.js';
import type { NetworkReport } from './network-report.js';
import type { Templates } from './pages/print-document.js';
import type { TemplateFonts } from './template-fonts.js';
import { buildTemplate } from './templates/header-footer.js';
import { inlineTemplateResources } from './templates/inline-templates.js';
import type { ResourceFetcher } from './templates/template-fetch.js';

/**
 * The file: URLs of templates read from files (`--header templates/header.html`): each one's
 * relative URLs resolve against its own URL, and its folder is readable to it as the document's
 * folder is to the document.
 */
export interface TemplateUrls {
  header?: string | undefined;
  footer?: string | undefined;
  firstPageHeader?: string | undefined;
  firstPageFooter?: string | undefined;
}

/** Where the templates' resources come from: the document's base URL, the templates' own, the files they may read. */
export interface TemplateSources {
  baseUrl: string;
  templateUrls: TemplateUrls;
  files: FileScope;
}

/** The request's templates, ready to print with. */
export async function prepareTemplates(
  request: RenderRequest,
  { baseUrl, templateUrls, files }: TemplateSources,
  fetcher: ResourceFetcher,
  signal: AbortSignal,
  warnings: string[],
  issues: NetworkReport,
): Promise<Templates & { fonts: TemplateFonts }> {
  const insets = { left: request.marginLeft, right: request.marginRight };
  // Page 1's own, where given: an empty string there is no template, and null is the usual one.
  const firstPage = request.firstPageHeaderHtmlContent !== null || request.firstPageFooterHtmlContent !== null;
  const firstHeader = request.firstPageHeaderHtmlContent ?? request.headerHtmlContent;
  const firstFooter = request.firstPageFooterHtmlContent ?? request.footerHtmlContent;
  const sides = [
    request.headerHtmlContent,
    request.footerHtmlContent,
    ...(firstPage ? [firstHeader, firstFooter] : []),
  ].map((html) => html ?? '');
  // Page 1's own comes from its own file, else it is the running one.
  const urls = [
    templateUrls.header,
    templateUrls.footer,
    request.firstPageHeaderHtmlContent !== null ? templateUrls.firstPageHeader : templateUrls.header,
    request.firstPageFooterHtmlContent !== null ? templateUrls.firstPageFooter : templateUrls.footer,
  ];
  // One call for all, so the request's bounds on what is inlined cover them together.
  const inlined = await inlineTemplateResources(sides, {
    baseUrl: baseUrl === 'about:blank' ? undefined : baseUrl,
    baseUrls: urls,
    files,
    fetcher,
    signal,
  });
  // Blocked URLs are reported as blocked only, so nothing is said twice.
  const sideNames = ['header', 'footer', 'first-page header', 'first-page footer'];
  for (const { url, what, reason, templates } of inlined.leftOut)
    warnings.push(`${templates.map((index) => sideNames[index]).join(' and ')} ${what} ${url} was left out: ${reason}`);
  issues.blocked.push(...inlined.network.blocked);
  issues.failed.push(...inlined.network.failed);
  const [header, footer, pageOneHeader, pageOneFooter] = inlined.templates.map((html) =>
    buildTemplate(html || null, insets),
  );
  return {
    header: header!,
    footer: footer!,
    display: Boolean(request.headerHtmlContent || request.footerHtmlContent),
    usesUrl: inlined.usesUrl,
    // Put in place on the page, once the document has loaded (template-fonts.ts).
    fonts: { preload: inlined.fonts, families: inlined.families },
    ...(firstPage && {
      firstPage: { header: pageOneHeader!, footer: pageOneFooter!, display: Boolean(firstHeader || firstFooter) },
    }),
  };
}
