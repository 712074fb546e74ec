/**
 * The steps of one render on a warm page: a fresh document at the base URL, the content, its
 * resources and fonts, then Chromium's printToPDF; afterwards the page is wiped for the next one.
 */
import { PdfRenderError } from '../../errors.js';
import { pageRangesOf } from '../../page-ranges.js';
import type { RenderRequest } from '../../request.js';
import { extraHeadersOf } from './extra-headers.js';
import type { Slot } from './page-pool.js';
import { storageOrigin, unlessScriptProhibited } from './page-state.js';
import type { ResourceIssue } from '../network-report.js';
import { printWithPageNumbers } from './page-references.js';
import { inPrintWorld, printPdf, type TemplatePair } from './print-pdf.js';
import { noteStyleSheets, type NotedSheets, type SheetTexts } from './style-sheet-texts.js';
import { unresolvedRelativeUrls } from './relative-urls.js';
import { singlePageRequest } from './single-page.js';
import { waitForConditions } from './wait-conditions.js';
import { inSpan } from '../../tracing/spans.js';
import { setPrintViewport } from './print-viewport.js';
import { inspectDocument, type Inspection } from '../report/inspect-document.js';
import type { RenderReport } from '../report/render-report.js';
import { scriptErrors } from '../report/script-errors.js';

/** The request's templates: those of every page, and page 1's own when it has them. */
export interface Templates extends TemplatePair {
  /** A template prints the document's URL (class "url"). */
  usesUrl: boolean;
  firstPage?: TemplatePair;
}

/** A printed document, and page 1 printed again with page 1's own templates when the request has them. */
export interface Printed {
  pdf: Uint8Array;
  firstPage?: Uint8Array;
  /** What the document could not load for want of a base URL (relative-urls.ts). */
  unresolved: ResourceIssue[];
  /** What the report needs from the page, read before it went back to the pool. */
  observed: Observed;
}

/** What printDocument saw of the document for its report (report/render-report.ts). */
export interface Observed {
  /** Undefined when the page could not answer. */
  inspection: Inspection | undefined;
  scriptErrors: RenderReport['scriptErrors'];
  /** How the document's page references were written in, when it has any (page-references.ts). */
  pageReferences?: RenderReport['pageReferences'];
  /** Every step but the report's checks after the page is given back (engine.ts adds those). */
  timings: RenderReport['timings'];
}

/** Where and how one document is printed, besides the request itself. */
export interface PrintJob {
  /** URL the document's relative links resolve against. */
  baseUrl: string;
  /** The document's own URL, given only when a template prints it (see printDocument). */
  documentUrl?: string;
  /** Documents longer than this fail. */
  maxPages: number;
  /** The render's deadline (and the caller's cancel): ends the request's waits. */
  signal: AbortSignal;
  /** The wait conditions still unmet, by name, for the message of a deadline that runs out. */
  pending: Set<string>;
  /** The engine's texts of the style sheets read lately, for documents that have them from Chromium's memory cache. */
  sheetTexts: SheetTexts;
  /** Once the document is ready, before it prints: the templates to print it with (their web fonts in place). */
  beforePrint?: (templates: Templates) => Promise<Templates>;
}

/**
 * Load the request's document into the slot's page (its `url`, or its `htmlContent` as a document at
 * `job.baseUrl`), wait for what the request asks to wait for, and print it. With a `documentUrl`
 * (given only when a template prints the URL), the page navigates to that URL instead, which the
 * page's guard answers with the same HTML, so `url` prints the file rather than its folder; that
 * costs a navigation, so it is done only then.
 */
export async function printDocument(
  slot: Slot,
  request: RenderRequest,
  templates: Templates,
  job: PrintJob,
): Promise<Printed> {
  // From before the document is written: its style sheets' text, for its page references.
  const noted = noteStyleSheets(slot.page, job.sheetTexts);
  try {
    return await printNoted(slot, request, templates, job, noted);
  } finally {
    noted.stop();
  }
}

async function printNoted(
  slot: Slot,
  request: RenderRequest,
  templates: Templates,
  job: PrintJob,
  noted: NotedSheets,
): Promise<Printed> {
  const { page } = slot;
  const started = performance.now();
  // Before the document is written, so it is laid out for this media from the start. Kept by the
  // page across documents and windows, so it is sent only when it changes; each call replaces the
  // features the last set, so the next document never inherits this one's (dark, say).
  const media = request.emulatedMediaType === 'screen' ? 'screen' : '';
  const features = Object.entries(request.emulatedMediaFeatures ?? {}).flatMap(([name, value]) =>
    value === undefined ? [] : [{ name, value }],
  );
  const emulated = JSON.stringify([media, features]);
  if (slot.media !== emulated) {
    await slot.client.send('Emulation.setEmulatedMedia', { media, features });
    slot.media = emulated;
  }
  await setPrintViewport(slot, request);
  // The same for the User-Agent: an empty override is Chromium's own again, for the next document.
  const userAgent = request.userAgent ?? '';
  if (slot.userAgent !== userAgent) {
    await slot.client.send('Emulation.setUserAgentOverride', { userAgent });
    slot.userAgent = userAgent;
  }
  // Until the render ends (the guard's end() undoes it), not across documents as the above are.
  const extra = extraHeadersOf(request);
  if (extra) await slot.guard.sendHeaders(extra);
  // The navigation, or the HTML written into the page, up to its load event.
  await inSpan('load', async () => {
    // Decided from the page's state, not from the new document: a written document reuses the window
    // only when nothing of the last document can be alive in it and it is at this document's base URL.
    if (
      !request.url &&
      !job.documentUrl &&
      (slot.state.taint !== null || page.url() !== job.baseUrl || page.frames().length > 1)
    )
      await freshWindow(slot, job.baseUrl);
    slot.state.taken();
    if (request.url) {
      // Host-only cookies of the url's host: sent with its own requests, never to another site. The
      // page's reset clears every cookie before the next document.
      if (request.cookies) {
        const secure = request.url.startsWith('https:');
        const cookies = Object.entries(request.cookies).map(([name, value]) => ({
          name,
          value,
          url: request.url!,
          path: '/',
          secure,
        }));
        await slot.client.send('Network.setCookies', { cookies });
      }
      await openPage(slot, request.url, job.pending);
    } else if (job.documentUrl) {
      await page.goto(job.documentUrl, { waitUntil: 'load', timeout: 0 });
      slot.printWorld = undefined; // went with the old window
    } else {
      await writeDocument(slot, request.htmlContent ?? '');
    }
  });
  const loaded = performance.now();
  await waitForConditions(slot, request, job.signal, job.pending);
  const waited = performance.now();
  // Only HTML written at about:blank (the server's) can have relative URLs that lead nowhere.
  const unresolved = job.baseUrl === 'about:blank' && !request.url ? await unresolvedRelativeUrls(slot) : [];
  if (job.beforePrint) templates = await job.beforePrint(templates);
  // Chromium writes the PDF's language (the catalog's and each element's) from the document's own.
  if (request.lang) await inPrintWorld(slot, declareLanguage(request.lang));
  let printed = request;
  // A document with page references prints again with their numbers in (page-references.ts).
  const {
    pdf,
    after: firstPage,
    pageReferences,
  } = await inSpan('print', () =>
    printWithPageNumbers(
      slot,
      { noted, store: job.sheetTexts },
      {
        async print(whole) {
          printed = request.singlePage ? await singlePageRequest(slot, request, job.maxPages) : request;
          return printPdf(slot, whole ? { ...printed, pageRanges: null } : printed, templates, job.maxPages);
        },
        // Chromium has one template for every page: page 1's own is printed on its own (with its real
        // number and the document's total, as Chromium keeps them for a page range) and laid over page 1 later.
        after: async () =>
          templates.firstPage && printsFirstPage(request)
            ? printPdf(slot, { ...printed, pageRanges: '1' }, templates.firstPage, job.maxPages)
            : undefined,
        ranged: Boolean(request.pageRanges),
      },
    ),
  );
  const printedAt = performance.now();
  // Read after the print, from the document as it printed: its fonts in, its frames run.
  const [inspection, errors] = await Promise.all([
    inspectDocument(slot),
    scriptErrors(slot.client, slot.state.scripted),
  ]);
  const observed: Observed = {
    inspection,
    scriptErrors: errors,
    ...(pageReferences && { pageReferences }),
    timings: {
      loadMs: Math.round(loaded - started),
      waitMs: Math.round(waited - loaded),
      printMs: Math.round(printedAt - waited),
      reportMs: Math.round(performance.now() - printedAt),
    },
  };
  return { pdf, unresolved, observed, ...(firstPage && { firstPage }) };
}

// The request's language given to a document that declares none (<html> without a lang attribute).
const declareLanguage = (lang: string) =>
  `(() => { const root = document.documentElement; if (root && !root.getAttribute('lang')?.trim()) root.setAttribute('lang', ${JSON.stringify(lang)}); })()`;

function printsFirstPage(request: RenderRequest): boolean {
  return pageRangesOf(request.pageRanges)?.some((range) => range.first === 1) ?? true;
}

/**
 * Load the caller's page at `url` as a browser would: through the egress proxy (so under the network
 * policy), at its own URL, which is then its base URL. The pooled page it lands in was wiped when its
 * last document left, and the navigation taints it, so it gets a fresh window afterwards.
 */
async function openPage(slot: Slot, url: string, pending: Set<string>): Promise<void> {
  const shown = withoutCredentials(url);
  const waiting = `${shown} to load`;
  pending.add(waiting);
  try {
    // The policy's refusal of the page itself (or of where it redirected), or why it could not be
    // reached (refused, reset, timed out), says more than what Chromium makes of it (the proxy's 403
    // or 502 for http, a failed tunnel for https); a refused image on an error page is no reason of the page's.
    // It says all there is (Chromium's own error would add only its name for it): no cause, so the
    // log has one line; what the caller is not told (where a name pointed) goes as the detail.
    const refusal = (urls: string[]) => {
      const seen = slot.guard.seen();
      const blocked = seen.blocked.find((issue) => urls.includes(issue.url));
      const refused = blocked ?? seen.failed.find((issue) => issue.code !== 'HTTP_ERROR' && urls.includes(issue.url));
      return (
        refused &&
        // A refusal by the policy is the same every time; a server that did not answer may next time.
        new PdfRenderError(
          'RENDER_PDF_FAILED',
          `url ${withoutCredentials(refused.url)} was not loaded: ${refused.reason}`,
          { documentFault: blocked !== undefined, ...(refused.detail === undefined ? {} : { detail: refused.detail }) },
        )
      );
    };
    const response = await slot.page.goto(url, { waitUntil: 'load', timeout: 0 }).catch((error: unknown) => {
      // A navigation that failed outright: its own URL, or the first refused one (where it redirected).
      throw (
        refusal([url]) ??
        refusal(
          slot.guard
            .seen()
            .blocked.slice(0, 1)
            .map((issue) => issue.url),
        ) ??
        error
      );
    });
    slot.printWorld = undefined; // went with the old window
    // A page that answered with an error is not the document the caller meant to print.
    if (response && response.status() >= 400) {
      throw (
        refusal([
          response.url(),
          ...response
            .request()
            .redirectChain()
            .map((request) => request.url()),
        ]) ?? new PdfRenderError('RENDER_PDF_FAILED', `url ${shown} answered HTTP ${response.status()}`)
      );
    }
  } finally {
    pending.delete(waiting);
  }
}

// A URL as messages show it: a user name and password in it stay out of answers and logs.
function withoutCredentials(url: string): string {
  const parsed = URL.parse(url);
  if (!parsed || (!parsed.username && !parsed.password)) return url;
  parsed.username = '';
  parsed.password = '';
  return parsed.href;
}

/**
 * Leave the page ready for another caller's document. A page already tainted goes straight to a
 * fresh window. Otherwise the document is replaced by an empty one first, which removes its nodes
 * and their handlers, so nothing of a document that ran no script can run from then on (a handler
 * on a late event, an SVG animation's onbegin). Then the state the page reported decides: a
 * document that ran script or asked for a navigation (a pending meta refresh) gets the page
 * navigated to a fresh window; any other page keeps its window.
 */
export async function resetPage(slot: Slot, baseUrl: string): Promise<void> {
  const { client, state } = slot;
  // Already known to need a fresh window: its navigation stops everything the empty document would.
  if (state.taint !== null) return freshWindow(slot, baseUrl);
  // Its load event is waited for too: one arriving after the page went back to the pool would be
  // taken for the next document's, which would then print before its resources are in.
  await writeDocument(slot, '');
  // Cookies can come from any subresource's Set-Cookie, script or not. The session keeps order, so
  // once this answers, every event the page sent before it (a script, a scheduled refresh) is in.
  await client.send('Network.clearBrowserCookies');
  if (state.taint !== null || slot.page.url() !== baseUrl || slot.page.frames().length > 1)
    return freshWindow(slot, baseUrl);
  // No script of ours ran, but cross-origin frames run theirs in other processes.
  await clearStorage(slot, state.origins);
  state.clear();
}

/**
 * Navigate the page to a fresh window at `baseUrl` with nothing stored and no history, and check
 * that it got there. The navigation stops every script, timer, worker and pending navigation of the
 * old document; only then is what it stored wiped, so nothing can write after the wipe.
 */
async function freshWindow(slot: Slot, baseUrl: string): Promise<void> {
  const { page, client, state } = slot;
  // A folder's URL would load Chromium's listing of it (costly for a folder of a thousand inputs,
  // and it runs script); the window only needs the URL, so the navigation is answered with nothing.
  const servedEmpty = baseUrl.startsWith('file:') ? slot.guard.serveOnce(baseUrl, '') : () => baseUrl === 'about:blank';
  await page.goto(baseUrl, { waitUntil: 'load', timeout: 0 });
  // A new page's first window, empty and of pdfrender's making (as the guard answered it), has
  // nothing stored, set or named to wipe: its wipes are skipped (a cold letter: three round trips
  // and a storage sweep, about 8 ms of CPU). The history reset stays, so that every document finds
  // the same history. It is then the last round trip before the state is cleared; the browser
  // answers it itself, so an event still on its way from the renderer could come after, but only
  // of pdfrender's own window (the scripts it adds to every window), which at worst taints the
  // page once more.
  const pristine = state.pristine && servedEmpty();
  slot.printWorld = undefined; // went with the old window
  await Promise.all([
    // History would tell the next document how many came before it, and is how a bfcache entry comes back.
    client.send('Page.resetNavigationHistory'),
    // The origins are read once the old document is gone, so a frame that navigated while it went is among them.
    pristine
      ? undefined
      : wipeWindow(slot, new Set([...state.origins, storageOrigin(baseUrl)].filter((origin) => origin !== null))),
  ]);
  // Everything the page reported up to here was the old document or this reset; a round trip on the
  // same session makes sure all of it is in before it is forgotten.
  if (!pristine) await client.send('Network.clearBrowserCookies');
  state.clear();
  if (page.url() !== baseUrl || page.frames().length > 1) throw new Error(`the page could not be reset to ${baseUrl}`);
}

/** Wipe what the old document of a fresh window left: per tab, and stored for `origins`. */
async function wipeWindow(slot: Slot, origins: Iterable<string>): Promise<void> {
  await Promise.all([
    // Kept per tab, across navigations: clearing data for an origin does not reach them. With
    // JavaScript off nothing could have set them, and Chromium refuses the call.
    // On pdfrender's own session: puppeteer's evaluate needs the Runtime domain, which is kept off (unneeded-commands.ts).
    // Opaque origins (about:blank) have no storage, hence the try.
    slot.client
      .send('Runtime.evaluate', {
        expression: "window.name = ''; try { sessionStorage.clear(); } catch {}",
      })
      .catch(unlessScriptProhibited),
    clearStorage(slot, origins),
  ]);
}

/** Write `html` as the page's document, in place of the one there, and wait for its load event. */
export async function writeDocument(slot: Slot, html: string): Promise<void> {
  const { client, state } = slot;
  let onLifecycle: (event: { frameId: string; name: string }) => void = () => undefined;
  // Registered before the write: a document with nothing to load fires load while it is written.
  const loaded = new Promise<void>((resolve) => {
    onLifecycle = (event) => {
      if (event.frameId === state.frameId && event.name === 'load') resolve();
    };
    client.on('Page.lifecycleEvent', onLifecycle);
  });
  try {
    // Written by DevTools itself rather than by a script in the page, so every script the page
    // reports is the document's own.
    await client.send('Page.setDocumentContent', { frameId: state.frameId, html });
    await loaded;
  } finally {
    client.off('Page.lifecycleEvent', onLifecycle);
  }
}

// Storage of every type (local, session, IndexedDB, Cache Storage, service workers) for `origins`.
async function clearStorage(slot: Slot, origins: Iterable<string>): Promise<void> {
  await Promise.all(
    [...origins].map((origin) => slot.client.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' })),
  );
}
