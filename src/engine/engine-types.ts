/**
 * The engine's public shapes: its options, a render's options and result, the engine itself, and
 * their defaults. engine.ts re-exports them, so importers name engine.js alone.
 */
import type { ProblemKind } from '../fail-on-rules.js';
import type { NetworkPolicy } from '../network/policy.js';
import type { Resolver } from '../network/resolve-checked.js';
import type { RenderRequest, RenderRequestInput } from '../request.js';
import type { FileAccess } from './file-access.js';
import type { NetworkReport } from './network-report.js';
import type { BrowserEvent } from './browser/browser-host.js';
import type { PoolLoad } from './pages/page-pool.js';
import type { TemplateUrls } from './prepare-templates.js';
import type { RenderReport } from './report/render-report.js';
import type { ResourceFetcher } from './templates/template-fetch.js';

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
  /** Told of each event in the browser's life and each renderer stopped for memory (the server's metrics). */
  observe?: EngineObserver;
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
  /**
   * Every document is one caller's (the CLI): Chromium's network service runs on a thread of the
   * browser process instead of a process of its own, one process fewer to start (~40 ms of a cold
   * render's CPU), and the headless shell keeps its default profile in memory (~16 ms). Default
   * false (the server): there a fault in the network stack, which reads whatever the servers a
   * document names send, must neither reach the process that holds every caller's pages nor take
   * their renders down with it.
   */
  oneCaller?: boolean;
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
export const optionNames: SettingNames = {
  maxPages: 'maxPages',
  maxRenderMemory: 'maxRenderMemory',
  javascript: 'javascript: false',
  failOnBlocked: 'failOnBlocked',
  failOn: 'failOn',
};

/** Receives the engine's events that fail no render by themselves. */
export interface EngineObserver {
  browser(event: BrowserEvent): void;
  /** A renderer was stopped: the documents rendering at once passed the memory limit. */
  memoryStop(): void;
}

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
  /** Pages busy and idle, and renders waiting for one, as they are now (never waits). */
  load(): PoolLoad;
  /** Close every page and the browser. */
  close(options?: { kill?: boolean }): Promise<void>;
  readonly concurrency: number;
}

/** Default deadline for one render. */
export const defaultTimeoutMs = 30_000;
/** Default page limit of one document. */
export const defaultMaxPages = 2000;
