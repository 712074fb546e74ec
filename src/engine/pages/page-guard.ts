/**
 * What one page may load besides http(s), and what it could not load. http(s), ws(s) go through
 * the egress proxy, which enforces the network policy; every other scheme a document asks for is
 * paused here by the DevTools Fetch domain and refused, except file: URLs inside the folders the
 * document may read (its own when the CLI renders a file, the asset folders; file-access.ts), which
 * pdfrender reads and hands over (file-response.ts). Each render collects its blocked and failed URLs.
 * While a document with extraHttpHeaders renders, its http(s) requests are paused too, to add them (extra-headers.ts).
 */
import type { CDPSession, HTTPRequest, HTTPResponse, Page, Protocol } from 'puppeteer-core';
import { failureHeader, refusalHeader, type EgressProxy } from '../../network/egress-proxy.js';
import { connectionFailure, connectionFailureOf, isConnectionFailureCode } from '../../network/connection-failure.js';
import { networkRefusal, urlRefusal } from '../../network/refusal.js';
import { fileJudge, type FileScope } from '../file-access.js';
import { continueWithHeaders, isNetworkUrl, networkPatterns, type ExtraHeaders } from './extra-headers.js';
import { cappedUrl, maxIssues, type NetworkReport, type ResourceIssue } from '../network-report.js';
import { fulfilFile } from './file-response.js';

export interface PageGuard {
  /**
   * Start collecting for a document that may read the local files of `files` (file-access.ts).
   * When `document` is given, a navigation to its file: URL is answered with its HTML. With
   * `noStore`, the files it reads are kept out of Chromium's memory cache, where a later document
   * that may not read them would find them (a render that opened folders of its own).
   */
  begin(files: FileScope, document?: { url: string; html: string }, noStore?: boolean): void;
  /** What was collected so far, collecting on. */
  seen(): NetworkReport;
  /** Stop collecting and return what was collected. */
  end(): NetworkReport;
  /** The local files the current (or last) document loaded, as real paths. */
  filesRead(): string[];
  /**
   * Answer the next navigation to the file: URL `url` with `html` instead of the file (or folder
   * listing) there; the function returned says whether that navigation was answered so.
   */
  serveOnce(url: string, html: string): () => boolean;
  /**
   * Add `extra`'s headers to the current document's requests in their scope (extra-headers.ts), by
   * pausing its http(s) requests, until end(); a no-op outside begin() and end().
   */
  sendHeaders(extra: ExtraHeaders): Promise<void>;
}

export interface GuardOptions {
  proxy: EgressProxy;
  /** Local files are read again for every document, never kept in Chromium's memory cache (--watch). */
  rereadFiles?: boolean;
}

// Schemes a document might reach that the proxy never sees; data:, blob: and about: are harmless.
const pausedSchemes = [
  'file',
  'filesystem',
  'chrome',
  'chrome-extension',
  'chrome-untrusted',
  'devtools',
  'view-source',
  'ftp',
];
const schemePatterns = pausedSchemes.map((scheme) => ({ urlPattern: `${scheme}:*` }));

/** Install the guard on a new page. */
export async function guardPage(page: Page, client: CDPSession, options: GuardOptions): Promise<PageGuard> {
  let report: NetworkReport | null = null;
  // Judges file: URLs for the current document (its folder resolved once); none before the first.
  let judgeFile = fileJudge(undefined);
  let served: { url: string; html: string; answered?: boolean } | undefined;
  let began = 0;
  let noStoreNow = false;
  let read = new Set<string>();
  // The current document's extraHttpHeaders; null when http(s) requests are not paused for any (or no longer).
  let extra: ExtraHeaders | null = null;
  const add = (list: keyof NetworkReport, url: string, issue: Omit<ResourceIssue, 'url'>) => {
    if (report && report[list].length < maxIssues && !report[list].some((known) => known.url === url))
      report[list].push({ url: cappedUrl(url), ...issue });
  };

  client.on('Fetch.requestPaused', (event: Protocol.Fetch.RequestPausedEvent) => {
    if (served && event.request.url === served.url) {
      const { html } = served;
      served.answered = true;
      served = undefined;
      const body = Buffer.from(html).toString('base64');
      const responseHeaders = [{ name: 'Content-Type', value: 'text/html; charset=utf-8' }];
      return void client
        .send('Fetch.fulfillRequest', { requestId: event.requestId, responseCode: 200, responseHeaders, body })
        .catch(() => undefined);
    }
    const { requestId, request } = event;
    if (isNetworkUrl(request.url)) return continueWithHeaders(client, event, extra);
    void pausedDecision(request.url, judgeFile)
      .then(async (decision) => {
        if ('refused' in decision) {
          add('blocked', request.url, decision.refused);
          return client.send('Fetch.failRequest', { requestId, errorReason: 'BlockedByClient' });
        }
        const failure = await fulfilFile(
          client,
          requestId,
          request.url,
          decision.path,
          options.rereadFiles || noStoreNow,
        );
        if (failure) add('failed', request.url, { code: 'LOAD_FAILED', reason: failure });
        else read.add(decision.path);
      })
      // Never leave a request paused: the document would wait on it until its deadline.
      .catch(() => client.send('Fetch.failRequest', { requestId, errorReason: 'Failed' }).catch(() => undefined));
  });
  await client.send('Fetch.enable', { patterns: schemePatterns });

  page.on('requestfailed', (request: HTTPRequest) => {
    const url = request.url();
    const error = request.failure()?.errorText ?? '';
    if (error === 'net::ERR_ABORTED' || error === 'net::ERR_BLOCKED_BY_CLIENT') return; // cancelled, or refused above
    const scheme = url.slice(0, url.indexOf(':')).toLowerCase();
    if (pausedSchemes.includes(scheme)) return add('blocked', url, schemeRefusal(scheme)); // Chromium's own refusal
    const refused = proxyRefusal(url, options.proxy, began);
    const failure = refused ? undefined : proxyFailure(url, options.proxy, began);
    if (refused) add('blocked', url, refused);
    // A name that does not resolve, a connection refused, reset or not answered: the proxy's word
    // for it, not a failed tunnel.
    else if (failure) add('failed', url, failure);
    // Chromium's net error names say nothing of the server's network; anything else stays in the detail.
    else
      add(
        'failed',
        url,
        connectionFailureOf(error) ??
          (/^net::ERR_[A-Z0-9_]+$/.test(error)
            ? { code: 'LOAD_FAILED', reason: error }
            : { code: 'LOAD_FAILED', reason: 'failed to load', detail: error }),
      );
  });
  page.on('response', (response: HTTPResponse) => {
    const refused = response.headers()[refusalHeader];
    const failure = response.headers()[failureHeader];
    if (refused)
      add(
        'blocked',
        response.url(),
        proxyRefusal(response.url(), options.proxy, began) ??
          networkRefusal(refused === 'NETWORK_BLOCKED' ? 'NETWORK_BLOCKED' : 'NETWORK_POLICY'),
      );
    // The proxy's own 502: why it could not reach the server, never the server's answer.
    else if (failure)
      add(
        'failed',
        response.url(),
        isConnectionFailureCode(failure) ? connectionFailure(failure) : { code: 'LOAD_FAILED', reason: failure },
      );
    else if (response.status() >= 400)
      add('failed', response.url(), { code: 'HTTP_ERROR', reason: `HTTP ${response.status()}` });
  });

  return {
    begin(files, document, noStore = false) {
      noStoreNow = noStore;
      report = { blocked: [], failed: [] };
      read = new Set();
      served = document;
      began = options.proxy.clock.now(); // the clock the proxy stamps its refusals with
      judgeFile = fileJudge(files);
    },
    seen() {
      return report ?? { blocked: [], failed: [] };
    },
    filesRead: () => [...read],
    end() {
      const done = report ?? { blocked: [], failed: [] };
      report = null;
      served = undefined;
      // Sent before anything the page is asked next (the session keeps order), and anything paused
      // meanwhile goes on without the headers: nothing of them reaches the next document.
      if (extra) {
        extra = null;
        void client.send('Fetch.enable', { patterns: schemePatterns }).catch(() => undefined);
      }
      return done;
    },
    serveOnce(url, html) {
      const once: { url: string; html: string; answered?: boolean } = { url, html };
      served = once;
      return () => once.answered === true;
    },
    async sendHeaders(headers) {
      if (!report) return;
      extra = headers;
      await client.send('Fetch.enable', { patterns: [...schemePatterns, ...networkPatterns] });
    },
  };
}

// Why a paused (non-network) URL is refused, or the real path of the file it may load.
async function pausedDecision(url: string, judgeFile: ReturnType<typeof fileJudge>) {
  const scheme = url.slice(0, url.indexOf(':')).toLowerCase();
  if (scheme !== 'file') return { refused: schemeRefusal(scheme) };
  const decision = await judgeFile(url);
  return 'refused' in decision ? { refused: urlRefusal('FILE_NOT_ALLOWED', decision.refused) } : decision;
}

const schemeRefusal = (scheme: string) => urlRefusal('SCHEME_NOT_ALLOWED', `${scheme}: URLs are not allowed`);

// An https/ws(s) request the proxy refused, or whose name did not resolve, fails as a tunnel error;
// the proxy remembers which.
const proxyRefusal = (url: string, proxy: EgressProxy, since: number) =>
  atProxy(url, (host, port) => proxy.refusal(host, port, since));
const proxyFailure = (url: string, proxy: EgressProxy, since: number) =>
  atProxy(url, (host, port) => proxy.failure(host, port, since));

function atProxy<T>(url: string, ask: (host: string, port: string) => T): T | undefined {
  try {
    const parsed = new URL(url);
    const port =
      parsed.port ||
      ({ 'https:': '443', 'wss:': '443', 'http:': '80', 'ws:': '80' } as Record<string, string>)[parsed.protocol] ||
      '';
    return ask(parsed.hostname, port);
  } catch {
    return undefined;
  }
}
