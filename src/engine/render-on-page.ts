/**
 * One document, or one header and footer stamp, on a page of the pool: acquire it, guard it, print,
 * check what was printed, then reset the page for the next document (or close it).
 */
import { performance } from 'node:perf_hooks';
import { PdfRenderError } from '../errors.js';
import { pageRangesOf, pagesAskedUpTo } from '../page-ranges.js';
import { raceAbort, raceUntil } from '../race.js';
import type { RenderRequest } from '../request.js';
import { BrowserGone } from './browser/browser-gone.js';
import type { RenderMemory } from './browser/render-memory.js';
import { deadlineSignal } from './deadline.js';
import type { RenderOptions, RenderResult, SettingNames } from './engine-types.js';
import { fileScope, widerAccess, type FileAccess } from './file-access.js';
import type { NetworkReport } from './network-report.js';
import { countPdfPages } from './pages/page-count.js';
import { pageLimitError, PageLimitPassed } from './pages/page-limit.js';
import type { PagePool, Slot } from './pages/page-pool.js';
import { printDocument, resetPage, type Printed, type Templates } from './pages/print-document.js';
import { pastTheEnd } from './pages/print-pdf.js';
import { printStamp } from './pages/print-stamp.js';
import type { SheetTexts } from './pages/style-sheet-texts.js';
import { needsFonts, templateFontSteps, type TemplateFonts } from './template-fonts.js';
import type { ResourceFetcher } from './templates/template-fetch.js';
import { inSpan } from '../tracing/spans.js';

/** What a render on a page gives the steps after it. */
export type OnPage = Omit<RenderResult, 'report'> &
  Pick<Printed, 'firstPage' | 'observed'> & {
    /** The templates were printed with faces of the document's own (template-fonts.ts), which a stamp could not have. */
    facesFromDocument: boolean;
  };

/** The URL a render's page resolves against: a page loaded from `url` resolves its links (and its templates' images) against its own URL. */
export const baseUrlOf = (request: RenderRequest, options: RenderOptions): string =>
  request.url ?? options.baseUrl ?? 'about:blank';

/** What renders on the pool's pages take from their engine. */
export interface PageRenderDeps {
  pool: PagePool;
  memory: RenderMemory;
  /** Fetches what template fonts refer to. */
  fetcher: ResourceFetcher;
  /** The local files the engine's documents may load. */
  files: FileAccess;
  sheets: SheetTexts;
  /** The engine's deadline for one render, and for a page's reset after it. */
  timeoutMs: number;
  maxPages: number;
  names: SettingNames;
  failOnBlocked?: boolean;
}

/** Render documents, and print stamps, on the pages of `deps.pool`. */
export function pageRenders(deps: PageRenderDeps) {
  const { pool, memory, fetcher, files, sheets, timeoutMs, maxPages, names, failOnBlocked } = deps;

  async function renderOnPage(
    request: RenderRequest,
    renderOptions: RenderOptions & { signal: AbortSignal },
    templates: Templates & { fonts: TemplateFonts },
    templateIssues: NetworkReport,
    warnings: string[],
    started: number,
  ): Promise<OnPage> {
    const baseUrl = baseUrlOf(request, renderOptions);
    const scope = fileScope(widerAccess(files, renderOptions.files), baseUrl);
    const callerSignal = renderOptions.signal;
    const slot = await inSpan('page wait', () => pool.acquire(callerSignal, renderOptions.lane, renderOptions.caller));
    // The render's deadline starts once it has a page: time queued behind other documents does not count.
    const deadline = deadlineSignal(renderOptions.timeoutMs ?? timeoutMs);
    const signal = AbortSignal.any([deadline.signal, callerSignal]);
    let printed = false;
    // A document refused by the page limit before its print leaves the page as one that printed does.
    let refusedEarly = false;
    // Pages the document was laid out as: a long one's page may be closed after it (render-memory.ts).
    let laidOutPages = 0;
    // A template that prints the URL needs the page at the document's own URL (see printDocument).
    const documentUrl = templates.usesUrl ? renderOptions.documentUrl : undefined;
    slot.guard.begin(
      scope,
      documentUrl && request.htmlContent ? { url: documentUrl, html: request.htmlContent } : undefined,
      // What a render opened for itself stays out of the page's cache, which the next document shares.
      renderOptions.files !== undefined,
    );
    const pending = new Set<string>();
    const fonts = needsFonts(templates.fonts)
      ? templateFontSteps(slot, templates.fonts, {
          fetch: { fetcher, signal, baseUrl: baseUrl === 'about:blank' ? undefined : baseUrl, files: scope },
          pending,
          warnings,
          issues: templateIssues,
        })
      : undefined;
    // The templates as printed: with the document's own faces of the families they name, where it has them.
    let printedTemplates: Templates | undefined;
    // Renderer memory is watched while any render holds a page.
    const letGo = memory.hold();
    try {
      const printing = printDocument(slot, request, templates, {
        baseUrl,
        documentUrl,
        maxPages,
        signal,
        pending,
        sheetTexts: sheets,
        beforePrint: fonts && (async (ready) => (printedTemplates = await fonts.beforePrint(ready))),
      }).finally(() => fonts?.after());
      const { pdf, firstPage, unresolved, observed } = await raceAbort(
        raceUntil(printing, [slot.crashed, slot.gone]),
        signal,
      ).catch((error: unknown) => {
        // A deadline that ran out during a wait says which condition was never met.
        if (error === deadline.signal.reason && pending.size > 0)
          throw new PdfRenderError(
            'RENDER_PDF_FAILED',
            `${(error as Error).message}; still waiting for ${[...pending].join(' and ')}`,
            { documentFault: true },
          );
        throw error;
      });
      printed = true;
      const seen = slot.guard.end();
      const network = {
        blocked: [...templateIssues.blocked, ...seen.blocked],
        failed: [...templateIssues.failed, ...seen.failed, ...unresolved],
      };
      const pages = countPdfPages(pdf);
      laidOutPages = pages;
      if (pages > maxPages) throw pageLimitError(maxPages, names.maxPages);
      const ranges = pageRangesOf(request.pageRanges);
      if (ranges && pages < pagesAskedUpTo(ranges)) throw pastTheEnd(request.pageRanges!);
      if (failOnBlocked && network.blocked.length > 0) {
        const first = network.blocked[0]!;
        throw new PdfRenderError(
          'RENDER_PDF_FAILED',
          `the document asked for ${network.blocked.length} blocked URL${network.blocked.length === 1 ? '' : 's'} (${names.failOnBlocked}), first ${first.url}: ${first.reason}`,
          { documentFault: true },
        );
      }
      return {
        pdf,
        firstPage,
        pages,
        bytes: pdf.byteLength,
        ms: performance.now() - started,
        warnings,
        network,
        observed,
        files: slot.guard.filesRead(),
        facesFromDocument:
          printedTemplates !== undefined &&
          (printedTemplates.header !== templates.header || printedTemplates.footer !== templates.footer),
      };
    } catch (error) {
      // A renderer stopped for memory: the document's fault alone, or the documents' beside it.
      const stopped = printed ? undefined : await memory.stopOf(slot, names.maxRenderMemory);
      if (stopped) throw stopped;
      if (error instanceof PageLimitPassed) {
        refusedEarly = true;
        laidOutPages = error.estimate;
        throw pageLimitError(maxPages, names.maxPages, error);
      }
      // Its own renderer crashing is the document's doing; the browser going away is not.
      if (!printed && !slot.broken && !slot.page.browser().connected) throw new BrowserGone(error);
      throw error;
    } finally {
      letGo();
      slot.guard.end();
      deadline.clear();
      // The page is wiped for the next caller after this one has its answer, so the reset is no part
      // of its wait; the page (and its place in the pool) comes back once the reset is done.
      // Wiped to the base the caller's documents share, never to a page's own URL (which would load it again).
      // A page that had a frame of another origin is closed with its context instead: what that frame
      // stored is partitioned by the page's site, beyond what a reset clears (page-state.ts).
      // The last document of a run is not followed by another: its page is closed, not reset, as the browser goes with the run.
      if (printed && renderOptions.final) pool.release(slot, false);
      else if ((printed || refusedEarly) && !slot.state.partitioned)
        void resetWithin(slot, renderOptions.baseUrl ?? 'about:blank').then((clean) =>
          // Looked at again after the reset: a cross-site frame's navigation may be reported only now.
          pool.release(slot, clean && !slot.state.partitioned && memory.reusable(laidOutPages)),
        );
      else pool.release(slot, false);
    }
  }

  // The print of a header and footer stamp (print-stamp.ts), on a page between two documents and
  // within `timeoutMs` (what is left of the render's); the page is reset to where it was before it goes back.
  async function stampOnPage(
    request: RenderRequest,
    templates: Templates,
    pages: number,
    renderOptions: RenderOptions & { signal: AbortSignal },
  ): Promise<Uint8Array> {
    const slot = await pool.acquire(renderOptions.signal, renderOptions.lane, renderOptions.caller);
    const deadline = deadlineSignal(renderOptions.timeoutMs ?? timeoutMs);
    const baseUrl = slot.page.url();
    let printed = false;
    try {
      const printing = printStamp(slot, request, templates, pages);
      const pdf = await raceAbort(
        raceUntil(printing, [slot.crashed, slot.gone]),
        AbortSignal.any([deadline.signal, renderOptions.signal]),
      );
      printed = true;
      return pdf;
    } finally {
      deadline.clear();
      if (printed) void resetWithin(slot, baseUrl).then((clean) => pool.release(slot, clean));
      else pool.release(slot, false);
    }
  }

  // Reset a page for the next document within the render deadline; false when it could not be
  // (the page is then closed rather than reused).
  async function resetWithin(slot: Slot, baseUrl: string): Promise<boolean> {
    const deadline = deadlineSignal(timeoutMs);
    try {
      await raceAbort(raceUntil(resetPage(slot, baseUrl), [slot.crashed, slot.gone]), deadline.signal);
      return true;
    } catch {
      return false;
    } finally {
      deadline.clear();
    }
  }

  return { renderOnPage, stampOnPage };
}
