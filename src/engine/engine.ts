/**
 * The render engine: one warm browser, a bounded pool of reused pages, a deadline per render.
 * The CLI and the server both render through `engine.render`; only delivery differs.
 */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { PdfRenderError } from '../errors.js';
import { startEgressProxy, type EgressProxy } from '../network/egress-proxy.js';
import { publicOnly } from '../network/policy.js';
import {
  isParsedRenderRequest,
  parseRenderRequest,
  withoutAssets,
  type RenderRequest,
  type RenderRequestInput,
} from '../request.js';
import { withAssetFolder } from './asset-folder.js';
import { BrowserGone } from './browser/browser-gone.js';
import { BrowserHost } from './browser/browser-host.js';
import { browserRecord } from './browser/browser-record.js';
import { engineBrowserFlags } from './browser/engine-flags.js';
import { deadlineSignal } from './deadline.js';
import { retryAfterGone } from './retry-after-gone.js';
import { defaultMaxRenderMemory, RenderMemory } from './browser/render-memory.js';
import { checkRequest } from './check-request.js';
import {
  defaultMaxPages,
  defaultTimeoutMs,
  optionNames,
  type Engine,
  type EngineOptions,
  type RenderOptions,
  type RenderResult,
} from './engine-types.js';
import { fetchTemplates } from './fetch-templates.js';
import { asRenderError } from './render-error.js';
import { baseUrlOf, pageRenders, type OnPage } from './render-on-page.js';
import { defaultFetcher } from './templates/template-fetch.js';
import { finishRender } from './finish-render.js';
import { inSpan } from '../tracing/spans.js';
import { guardPage } from './pages/page-guard.js';
import { type NetworkReport } from './network-report.js';
import { assembleReport } from './report/assemble-report.js';
import { coverageOnce, requestMayDrawBeyondAscii } from './report/missing-glyphs.js';
import { failOnProblems } from './report/fail-on.js';
import { PagePool } from './pages/page-pool.js';
import { sheetTexts } from './pages/style-sheet-texts.js';
import { referenceWarnings } from './pages/page-references.js';
import { createTemplateStamps, renderWithStamps } from './template-stamps.js';

// The public types and the request check live in files of their own; importers name engine.js.
export type {
  Engine,
  EngineObserver,
  EngineOptions,
  RenderOptions,
  RenderResult,
  SettingNames,
} from './engine-types.js';
export { defaultMaxPages, defaultTimeoutMs } from './engine-types.js';
export { checkRequest } from './check-request.js';

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
    async () => [
      ...(options.browserArgs ?? []),
      ...engineBrowserFlags((await startProxy()).url, { oneCaller: options.oneCaller }),
    ],
    {
      recycleAfter: options.browserRecycleAfter ?? 2000,
      record: options.dataDir ? browserRecord(join(options.dataDir, 'browsers')) : undefined,
      hangTimeoutMs: options.browserHangTimeoutMs,
      warn: options.warn,
      observe: options.observe && ((event) => options.observe!.browser(event)),
    },
  );
  const retry = retryAfterGone();
  const memory = new RenderMemory({
    limit: options.maxRenderMemory ?? defaultMaxRenderMemory(),
    roots: () => host.pids(),
    // The pool is made below; the watcher calls this only once renders hold pages.
    relieve: () => pool.closeIdle(),
    stopped: options.observe && (() => options.observe!.memoryStop()),
    warn: options.warn && ((message) => options.warn!(`${message} (${names.maxRenderMemory})`)),
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
  const { renderOnPage, stampOnPage } = pageRenders({
    pool,
    memory,
    fetcher,
    files,
    sheets,
    timeoutMs,
    maxPages,
    names,
    failOnBlocked: options.failOnBlocked,
  });
  // One "render" span per call, its phases (render-on-page.ts, print-document.ts) its children.
  const render = (input: RenderRequest | RenderRequestInput, renderOptions: RenderOptions = {}) =>
    inSpan('render', async (span) => {
      const result = await renderNow(input, renderOptions);
      span.setAttributes({ 'pdfrender.pages': result.pages, 'pdfrender.bytes': result.bytes });
      return result;
    });

  async function renderNow(
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
        renderNow(withoutAssets(request), { ...renderOptions, ...folder }),
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
    const { templates, templateFiles } = await fetchTemplates(request, renderOptions, {
      fetcher,
      files,
      baseUrl,
      limitMs,
      callerSignal,
      warnings,
      templateIssues,
    });
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
    load: () => pool.load(),
    async close({ kill = false } = {}) {
      // `kill` is for a process about to exit (the CLI): no page or browser needs a graceful
      // goodbye, and killing the browser saves about 40 ms of a cold render.
      if (!kill) await pool.drain();
      await host.close(kill);
      await (await proxy?.catch(() => undefined))?.close();
    },
  };
}
