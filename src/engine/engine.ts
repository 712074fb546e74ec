/**
 * The render engine: one warm browser, a bounded pool of reused pages, a deadline per render.
 * The CLI and the server both render through `engine.render`; only delivery differs.
 */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { PdfRenderError, type FieldErrors } from '../errors.js';
import { pageRangesOf, pagesAskedUpTo } from '../page-ranges.js';
import { startEgressProxy, type EgressProxy } from '../network/egress-proxy.js';
import { publicOnly, type NetworkPolicy } from '../network/policy.js';
import type { Resolver } from '../network/resolve-checked.js';
import { raceAbort, raceUntil } from '../race.js';
import {
  isParsedRenderRequest,
  parseRenderRequest,
  withoutAssets,
  type RenderRequest,
  type RenderRequestInput,
} from '../request.js';
import { checkAssets, withAssetFolder } from './asset-folder.js';
import { checkFacturX } from './document/factur-x.js';
import { throwFieldErrors } from '../schema-parse.js';
import { BrowserGone } from './browser/browser-gone.js';
import { BrowserHost } from './browser/browser-host.js';
import { browserRecord } from './browser/browser-record.js';
import { engineBrowserFlags } from './browser/engine-flags.js';
import { deadlineSignal } from './deadline.js';
import { retryAfterGone } from './retry-after-gone.js';
import { defaultMaxRenderMemory, RenderMemory } from './browser/render-memory.js';
import { fileScope, widerAccess, type FileAccess } from './file-access.js';
import { prepareTemplates, type TemplateUrls } from './prepare-templates.js';
import { asRenderError } from './render-error.js';
import { defaultFetcher, type ResourceFetcher } from './templates/template-fetch.js';
import { needsFonts, templateFontSteps, type TemplateFonts } from './template-fonts.js';
import { countPdfPages } from './pages/page-count.js';
import { finishRender } from './finish-render.js';
import { checkAttachmentBytes } from '../request-attachments.js';
import { guardPage } from './pages/page-guard.js';
import { type NetworkReport } from './network-report.js';
import { assembleReport } from './report/assemble-report.js';
import { coverageOnce, requestMayDrawBeyondAscii } from './report/missing-glyphs.js';
import { failOnProblems } from './report/fail-on.js';
import type { ProblemKind } from '../fail-on-rules.js';
import type { RenderReport } from './report/render-report.js';
import { PagePool, type Slot } from './pages/page-pool.js';
import { printDocument, resetPage, type Printed, type Templates } from './pages/print-document.js';
import { sheetTexts } from './pages/style-sheet-texts.js';
import { referenceWarnings } from './pages/page-references.js';
import { pastTheEnd } from './pages/print-pdf.js';
import { printStamp } from './pages/print-stamp.js';
import { createTemplateStamps, renderWithStamps } from './template-stamps.js';
import { pageLimitError, PageLimitPassed } from './pages/page-limit.js';

export interface EngineOptions {
  /** The Chromium or Chrome binary (see findBrowser). */
  executablePath: string;
  /** Documents rendered at once; default: the number of cores. */
  concurrency?: number;
  /** Pages one caller may hold at once (the rest stay for others); default: all of them. */
  maxPagesPerCaller?: number;
  /** How long an urgent render may wait for a page before it is refused (503 BROWSER_BUSY); default: as long as its caller waits. */
  pageWaitMs?: number;
  /** Deadline for one render in milliseconds, from the moment it gets a page; default 30 s. */
  timeoutMs?: number;
  /** Replace a page after this many documents; default 1000. */
  recycleAfter?: number;
  /** Launch a fresh browser for new pages after this many documents (the old one finishes its renders, then closes); default 2000. */
  browserRecycleAfter?: number;
  /** A browser that leaves a DevTools ping unanswered this long without working (or six times as long, working) is killed and replaced, its renders tried once more; default 5 s. */
  browserHangTimeoutMs?: number;
  /** Told what the operator should know that fails no render (a hung browser killed and replaced). */
  warn?: (message: string) => void;
  /** The server's data dir: running browsers are written down in its `browsers` folder, so the next run clears what a killed run left; default none (the CLI). */
  dataDir?: string;
  /** Documents longer than this many pages fail (Chromium prints one page more, not the whole document); default 2000. */
  maxPages?: number;
  /** Bytes the renderers of the documents rendering at once may use together; past it the largest is stopped (render-memory.ts); default a quarter of the machine's memory. */
  maxRenderMemory?: number;
  /** A render stopped because other large documents held the memory waits for the renders beside it to end and is tried once more, instead of failing with BROWSER_BUSY; default false (the server answers 503). */
  waitForMemory?: boolean;
  /** Fetches the images and style sheets header and footer templates refer to; default: under `network` and `files`. */
  fetcher?: ResourceFetcher;
  /** Extra Chromium flags. */
  browserArgs?: string[];
  /** What documents may reach over the network; default public addresses only (the server's default). */
  network?: NetworkPolicy;
  /**
   * Local files documents may load: 'document-folder' (their own folder and below, the CLI), or
   * `{ documentFolder, folders }` (and these folders, --assets-dir); default 'none' (the server).
   */
  files?: FileAccess;
  /** Run documents' JavaScript; default true. */
  javascript?: boolean;
  /** A document that asked for a blocked URL fails instead of rendering without it; default false. */
  failOnBlocked?: boolean;
  /** The failOn rules of a request that gives none (report/fail-on.ts); default none. */
  failOn?: readonly ProblemKind[];
  /** Resolves host names for the egress proxy; default the system resolver (tests give a DNS answer). */
  resolver?: Resolver;
  /** Every document reads its local files from disk again rather than from Chromium's memory cache (for --watch); default false. */
  rereadFiles?: boolean;
  /** How error messages name the settings behind these options: the CLI and server give their flags; default the option names. */
  settingNames?: Partial<SettingNames>;
}

/** The names error messages give the settings that can fail a request. */
export interface SettingNames {
  maxPages: string;
  maxRenderMemory: string;
  javascript: string;
  failOnBlocked: string;
  failOn: string;
}

/** What a library caller set: the options themselves. */
const optionNames: SettingNames = {
  maxPages: 'maxPages',
  maxRenderMemory: 'maxRenderMemory',
  javascript: 'javascript: false',
  failOnBlocked: 'failOnBlocked',
  failOn: 'failOn',
};

export interface RenderOptions {
  /** URL the document's relative links resolve against: the input file's folder for the CLI. Default about:blank. */
  baseUrl?: string;
  /** The document's own file: URL (the CLI's input file), printed by a template's `url` class instead of the folder. */
  documentUrl?: string;
  /** The file: URLs of header and footer templates read from files: their relative URLs resolve against them, and their folders are readable to them. */
  templateUrls?: TemplateUrls;
  /** Local files this render may load besides what the engine's `files` allows (renderFile opens the file's folder on any engine). */
  files?: FileAccess;
  /** Overrides the engine's deadline for this render. */
  timeoutMs?: number;
  /** Cancels the render (and its wait for a page). */
  signal?: AbortSignal;
  /** 'background' renders (async jobs) wait behind every 'urgent' one (sync requests, the CLI). Default urgent. */
  lane?: 'urgent' | 'background';
  /** Who the render is for (an API key, a client address): pages are shared fairly between callers. Default: one caller for all. */
  caller?: string;
  /**
   * No document follows this one on its page (a one-shot CLI run's last): the page is closed instead
   * of reset for another, which a process about to exit (and kill its browser) need not wait for.
   * Default false.
   */
  final?: boolean;
}

export interface RenderResult {
  pdf: Uint8Array;
  pages: number;
  bytes: number;
  /** Milliseconds from the call to the finished PDF, waiting for a page included. */
  ms: number;
  /** Things that went wrong without failing the render (a header image or style sheet that could not be fetched, a web font a template cannot load). */
  warnings: string[];
  /** URLs the network policy refused, and URLs that failed to load, while rendering (with the operator's detail). */
  network: NetworkReport;
  /** The preflight report: what did not go as the document asked, safe for its caller (report/render-report.ts). */
  report: RenderReport;
  /** The local files the document loaded (real paths): what a watch of its sources must watch. */
  files: string[];
}

export interface Engine {
  /** Refuse, as VALIDATION_FAILED, a request this engine cannot render as asked (a script wait with JavaScript off). */
  check(request: RenderRequest): void;
  /**
   * Render one request to PDF: parseRenderRequest's result, or a plain object of request fields,
   * which is parsed first (VALIDATION_FAILED naming each bad or unknown field). Rejects with
   * RENDER_PDF_FAILED when the document cannot be rendered; the engine stays usable.
   */
  render(request: RenderRequest | RenderRequestInput, options?: RenderOptions): Promise<RenderResult>;
  /** Launch the browser now rather than with the first render, so a broken browser fails early. */
  start(): Promise<void>;
  /** The Chromium version, launching the browser if it is not running yet. */
  version(): Promise<string>;
  /**
   * Whether the browser answered its watchdog's last ping, from what is known now: never waits, so a
   * hung browser cannot slow a readiness check. With no browser running it starts one and answers false.
   */
  browserReady(): boolean;
  /** Whether Chromium's sandbox is on and as whom it runs, in one line; launches the browser if needed. */
  sandbox(): Promise<string>;
  /** Close every page and the browser. */
  close(options?: { kill?: boolean }): Promise<void>;
  readonly concurrency: number;
}

const isString = (value: unknown): value is string => typeof value === 'string';

/** What a render on a page gives the steps after it. */
type OnPage = Omit<RenderResult, 'report'> &
  Pick<Printed, 'firstPage' | 'observed'> & {
    /** The templates were printed with faces of the document's own (template-fonts.ts), which a stamp could not have. */
    facesFromDocument: boolean;
  };

/** Default deadline for one render. */
export const defaultTimeoutMs = 30_000;
/** Default page limit of one document. */
export const defaultMaxPages = 2000;

// A page loaded from `url` resolves its links (and its templates' images) against its own URL.
const baseUrlOf = (request: RenderRequest, options: RenderOptions): string =>
  request.url ?? options.baseUrl ?? 'about:blank';

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

/** Create an engine; the browser starts with the first render (or `version()`). */
export function createEngine(options: EngineOptions): Engine {
  const concurrency = options.concurrency ?? availableParallelism();
  const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
  const maxPages = options.maxPages ?? defaultMaxPages;
  const policy = options.network ?? publicOnly;
  const names = { ...optionNames, ...options.settingNames };
  const files = options.files ?? 'none';
  const fetcher = options.fetcher ?? defaultFetcher({ policy, resolver: options.resolver });
  // One proxy for the engine's life, started with the first browser; every launch routes through it.
  let proxy: Promise<EgressProxy> | undefined;
  const startProxy = () => (proxy ??= startEgressProxy(policy, options.resolver));
  const host = new BrowserHost(
    options.executablePath,
    async () => [...(options.browserArgs ?? []), ...engineBrowserFlags((await startProxy()).url)],
    {
      recycleAfter: options.browserRecycleAfter ?? 2000,
      record: options.dataDir ? browserRecord(join(options.dataDir, 'browsers')) : undefined,
      hangTimeoutMs: options.browserHangTimeoutMs,
      warn: options.warn,
    },
  );
  const retry = retryAfterGone();
  const memory = new RenderMemory({
    limit: options.maxRenderMemory ?? defaultMaxRenderMemory(),
    roots: () => host.pids(),
  });
  // fontconfig's coverage, for the report's missing glyphs: read once, when first needed.
  const coverage = coverageOnce();
  // The style sheets' texts read for page references, for the documents that load them again.
  const sheets = sheetTexts();
  // Header and footer stamps for templates that repeat (template-stamps.ts).
  const stamps = createTemplateStamps();
  const pool = new PagePool(
    host,
    concurrency,
    options.recycleAfter ?? 1000,
    async (page, client) => {
      if (options.javascript === false) await page.setJavaScriptEnabled(false);
      return guardPage(page, client, { proxy: await startProxy(), rereadFiles: options.rereadFiles });
    },
    { maxPerCaller: options.maxPagesPerCaller, maxWaitMs: options.pageWaitMs },
  );
  async function render(
    input: RenderRequest | RenderRequestInput,
    renderOptions: RenderOptions = {},
  ): Promise<RenderResult> {
    // A request parsed already is not parsed again (it was marked when parsed).
    const request = isParsedRenderRequest(input) ? input : parseRenderRequest(input);
    check(request);
    // The request's own files are its document's folder while it renders, in place of any base URL
    // (a request file replayed by the CLI), but not beside folders a caller opened (renderFile).
    if (request.assets) {
      if (renderOptions.files !== undefined)
        throw new PdfRenderError('VALIDATION_FAILED', 'invalid request: 1 field failed validation', {
          fieldErrors: { assets: ['go with htmlContent, not with a file that has a folder of its own'] },
        });
      return withAssetFolder(request.assets, (folder) =>
        render(withoutAssets(request), { ...renderOptions, ...folder }),
      );
    }
    const started = performance.now();
    // fontconfig's coverage, which the report needs for a document with characters beyond ASCII: read
    // while the first document renders (about 90 ms with Noto installed), not after it. Not for a
    // request whose HTML is all ASCII, which most likely draws none (read after the print if it does):
    // fc-list and its output's parse are 75 to 90 ms of CPU, a sixth of a cold one-page render.
    if (requestMayDrawBeyondAscii(request)) void coverage();
    const baseUrl = baseUrlOf(request, renderOptions);
    // A signal of this render's own that follows the caller's (AbortSignal.any listens on none): the
    // waits below add their listeners to it, so a signal shared by many renders at once (a batch's
    // cancel, the server's stop) does not gather one per waiting render for Node to call a leak.
    const callerSignal = AbortSignal.any(renderOptions.signal ? [renderOptions.signal] : []);
    const limitMs = renderOptions.timeoutMs ?? timeoutMs;
    const warnings: string[] = [];
    const templateIssues: NetworkReport = { blocked: [], failed: [] };
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
    // A document written into a page reaches the PDF only through that page's own renderer; when the
    // whole browser dies under it (another document crashed it, or it was killed), the render is most
    // likely not this document's fault, so it is tried once more on the fresh browser (retry-after-gone.ts).
    // A render refused for the memory other renders held waits for them where the engine says so (the CLI).
    const attempt = (printed: typeof templates) => () => {
      const once = () =>
        renderOnPage(request, { ...renderOptions, signal: callerSignal }, printed, templateIssues, warnings, started);
      return options.waitForMemory ? memory.whenFree(once, callerSignal) : once();
    };
    let result: OnPage;
    // Templates printed before may be laid over the pages after the print (template-stamps.ts).
    let stamped: boolean;
    try {
      ({ result, stamped } = await renderWithStamps(request, templates, callerSignal, {
        stamps,
        render: (printed) => retry(attempt(printed), callerSignal),
        // Within what is left of the render's time, so a stamp never doubles a caller's deadline.
        printStamp: (pages) =>
          stampOnPage(request, templates, pages, {
            ...renderOptions,
            signal: callerSignal,
            timeoutMs: Math.max(1000, limitMs - (performance.now() - started)),
          }),
        caller: renderOptions.caller,
      }));
    } catch (error) {
      throw asRenderError(error instanceof BrowserGone ? error.cause : error);
    }
    // After the page went back to the pool: no other document waits on this.
    const {
      firstPage,
      observed,
      facesFromDocument: _,
      ...rendered
    } = {
      ...result,
      files: [...templateFiles, ...result.files],
    };
    const { pdf, accessibility, mended } = await finishRender(
      request,
      {
        pdf: rendered.pdf,
        firstPage,
        templates: templates.display && !stamped,
        declaredLang: observed.inspection?.lang,
      },
      limitMs,
      callerSignal,
    );
    rendered.warnings.push(...mended.map((mend) => `PDF/A: mended ${mend}`));
    // What the report reads of the PDF (its fonts, its empty boxes) is bounded as the render is.
    const reportDeadline = deadlineSignal(limitMs);
    const report = await assembleReport(
      request,
      pdf,
      observed,
      rendered.network,
      coverage,
      accessibility,
      AbortSignal.any([reportDeadline.signal, callerSignal]),
    ).finally(reportDeadline.clear);
    callerSignal.throwIfAborted();
    warnings.push(...referenceWarnings(report.pageReferences));
    return judged(request, { ...rendered, pdf, bytes: pdf.byteLength, ms: performance.now() - started, report });
  }

  const check = (request: RenderRequest) => checkRequest(request, options);

  // The request's failOn rules (or the engine's default ones) turn what the report found into a failure.
  const judged = (request: RenderRequest, result: RenderResult): RenderResult => {
    // The setting named is where the rules came from: the request, or the engine's default.
    if (request.failOn) failOnProblems(result.report, request.failOn, "the request's failOn");
    else failOnProblems(result.report, options.failOn ?? [], names.failOn);
    return result;
  };

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
    const slot = await pool.acquire(callerSignal, renderOptions.lane, renderOptions.caller);
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
      if (options.failOnBlocked && network.blocked.length > 0) {
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

  return {
    render,
    check,
    concurrency,
    start: async () => void (await host.get()),
    version: () => host.version(),
    browserReady() {
      const health = host.health();
      if (health === 'none') void host.get().catch(() => undefined);
      return health === 'answering';
    },
    sandbox: () => host.sandbox(),
    async close({ kill = false } = {}) {
      // `kill` is for a process about to exit (the CLI): no page or browser needs a graceful
      // goodbye, and killing the browser saves about 40 ms of a cold render.
      if (!kill) await pool.drain();
      await host.close(kill);
      await (await proxy?.catch(() => undefined))?.close();
    },
  };
}
