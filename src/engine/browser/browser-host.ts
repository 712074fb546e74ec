/**
 * Keeps one warm browser: launched on first use, relaunched after it dies, killed when it stops
 * answering (browser-watchdog.ts) or a page will not close,
 * and replaced by a fresh one after a number of renders (browser-wide memory and state, such as
 * the GPU and network processes, only ever grow). Each launch is a new generation, so pages of an
 * old browser are never handed out again; a replaced browser finishes the renders on its pages
 * before it is closed, so a recycle never fails a render.
 */
import type { Browser } from 'puppeteer-core';
import type { BrowserRecord } from './browser-record.js';
import { browserCpuReader } from './browser-cpu.js';
import { watchBrowser, type Watchdog } from './browser-watchdog.js';
import { launchBrowser, type LaunchedBrowser } from './launch.js';
import { sweepStaleProfiles } from './profile-owner.js';
import { detached } from '../../tracing/spans.js';

export interface HostedBrowser {
  browser: Browser;
  generation: number;
  /** Rejects once this browser is gone (it died, or was killed as hung); renders on it race against it. */
  gone: Promise<never>;
}

/** What the host knows of its browser without asking it: for readiness checks that must not wait. */
export type BrowserHealth = 'answering' | 'starting' | 'not answering' | 'none';

/** What happened to a browser: launched, failed to launch, died on its own, killed as hung, or replaced after its renders. */
export const browserEvents = ['launched', 'launch_failed', 'crashed', 'hung', 'recycled'] as const;
export type BrowserEvent = (typeof browserEvents)[number];

/** Default time a browser may leave a DevTools ping unanswered before it is killed and replaced. */
const defaultHangTimeoutMs = 5_000;

export interface BrowserHostOptions {
  /** Launch a fresh browser for new pages after this many renders; default never. */
  recycleAfter?: number;
  /** Where running browsers are written down (the server's data dir); leftovers are reaped before the first launch. */
  record?: BrowserRecord;
  /** A browser that leaves a DevTools ping unanswered this long without working (or six times as long, working) is killed and replaced; default 5 s. */
  hangTimeoutMs?: number;
  /** Told when a hung browser is killed, for the operator's log. */
  warn?: (message: string) => void;
  /** Told of each launch, failed launch, crash, hang and recycle (the server's metrics). */
  observe?: (event: BrowserEvent) => void;
}

/** One launched browser and the renders it has seen. */
interface Generation {
  number: number;
  launching: Promise<LaunchedBrowser>;
  /** Set once the launch has succeeded. */
  watchdog?: Watchdog;
  /** The browser's process, once launched (render-memory.ts reads its tree). */
  pid?: number;
  gone?: Promise<never>;
  /** Renders given this browser so far (counts toward the recycle). */
  renders: number;
  /** Renders holding one of its pages right now; a retired browser closes when this reaches 0. */
  holds: number;
  /** Set when pdfrender closes or kills it: its disconnection then is no crash. */
  closing?: boolean;
}

export class BrowserHost {
  private current: Generation | undefined;
  /** Browsers replaced by a recycle, still finishing the renders on their pages. */
  private readonly retiring = new Map<number, Generation>();
  private generation = 0;
  private closed = false;
  private reaped: Promise<unknown> | undefined;
  private swept: Promise<unknown> | undefined;
  private readonly recycleAfter: number;
  private readonly record: BrowserRecord | undefined;
  private readonly hangTimeoutMs: number;
  private readonly warn: (message: string) => void;
  private readonly observe: (event: BrowserEvent) => void;

  constructor(
    private readonly executablePath: string,
    /** Extra Chromium flags, asked for at each launch (the egress proxy starts with the first). */
    private readonly extraArgs: () => Promise<readonly string[]> = async () => [],
    options: BrowserHostOptions = {},
  ) {
    this.recycleAfter = options.recycleAfter ?? Infinity;
    this.record = options.record;
    this.hangTimeoutMs = options.hangTimeoutMs ?? defaultHangTimeoutMs;
    this.warn = options.warn ?? (() => undefined);
    this.observe = options.observe ?? (() => undefined);
  }

  /** The live browser, launching one if there is none (or the last one died). */
  async get(): Promise<HostedBrowser> {
    if (this.closed) throw new Error('the render engine is closed');
    const generation = this.current ?? this.launch();
    return this.hosted(generation);
  }

  /**
   * The browser for one render: counted toward the recycle, and kept open until `done(generation)`.
   * The render that reaches the limit still gets the old browser; the next one starts the new.
   */
  async use(): Promise<HostedBrowser> {
    if (this.closed) throw new Error('the render engine is closed');
    if (this.current && this.current.renders >= this.recycleAfter) this.retire(this.current);
    const generation = this.current ?? this.launch();
    generation.renders += 1;
    generation.holds += 1;
    try {
      return await this.hosted(generation);
    } catch (error) {
      this.done(generation.number);
      throw error;
    }
  }

  /** A render given a browser by `use` has let go of its page; a retired browser with none left is closed. */
  done(generation: number): void {
    const held = this.current?.number === generation ? this.current : this.retiring.get(generation);
    if (!held) return;
    held.holds -= 1;
    if (held.holds <= 0 && this.retiring.delete(generation)) void this.shut(held);
  }

  /** True when `generation` is the browser currently in use. */
  isCurrent(generation: number): boolean {
    return this.current?.number === generation;
  }

  /**
   * Kill the browser of `generation` outright, its whole process group (it stopped answering): its
   * renders fail at once as gone, and are retried on the next browser, which the next render launches.
   */
  async kill(generation: number): Promise<void> {
    const target = this.current?.number === generation ? this.current : this.retiring.get(generation);
    if (!target) return;
    this.observe('hung');
    this.forget(target);
    await this.shut(target, true);
  }

  /** The processes of the running browsers, retiring ones included. */
  pids(): number[] {
    const all = [...(this.current ? [this.current] : []), ...this.retiring.values()];
    return all.flatMap((generation) => (generation.pid === undefined ? [] : [generation.pid]));
  }

  /** The current browser's state as last seen, without waiting on it (a hung browser never answers). */
  health(): BrowserHealth {
    if (this.closed || !this.current) return 'none';
    if (!this.current.watchdog) return 'starting';
    return this.current.watchdog.answering() ? 'answering' : 'not answering';
  }

  /** Whether the browser's sandbox is on and as whom it runs (one line), launching the browser if needed. */
  async sandbox(): Promise<string> {
    if (this.closed) throw new Error('the render engine is closed');
    return (await (this.current ?? this.launch()).launching).sandbox;
  }

  /** Chromium's version string, launching the browser if needed. */
  async version(): Promise<string> {
    return (await this.get()).browser.version();
  }

  /** Close every browser for good, retired ones still finishing included; `kill` skips the graceful close. */
  async close(kill = false): Promise<void> {
    this.closed = true;
    const all = [...(this.current ? [this.current] : []), ...this.retiring.values()];
    this.current = undefined;
    this.retiring.clear();
    await Promise.all(all.map((generation) => this.shut(generation, kill)));
  }

  private launch(): Generation {
    const generation = { number: ++this.generation, renders: 0, holds: 0 } as Generation;
    // Outside the span of the render that needed it: the browser's pipe, watchdog and handlers
    // outlive that render, and would log in its trace for the browser's whole life.
    generation.launching = detached(() => this.start(generation));
    // A failed launch must not stick: the next render tries again.
    generation.launching.then(
      () => this.observe('launched'),
      () => {
        this.observe('launch_failed');
        this.forget(generation);
      },
    );
    this.current = generation;
    return generation;
  }

  private async start(generation: Generation): Promise<LaunchedBrowser> {
    // Whatever a killed earlier run left is cleared with this run's first browser: the browsers its
    // data dir recorded (serve) before it starts, and profile folders whose owner is gone (any run)
    // while it starts, so a cold CLI run does not wait on the temp folder.
    const swept = (this.swept ??= sweepStaleProfiles().catch(() => undefined));
    await (this.reaped ??= this.record?.reapLeftovers().catch(() => undefined) ?? Promise.resolve());
    const launched = await launchBrowser(this.executablePath, await this.extraArgs());
    generation.pid = launched.pid;
    await swept;
    generation.gone = new Promise<never>((_, reject) => {
      // A browser that dies (crash, OOM kill, killed as hung) is forgotten, so the next render relaunches.
      launched.browser.once('disconnected', () => {
        if (!generation.closing) this.observe('crashed');
        reject(new Error('the browser has disconnected'));
        this.forget(generation);
        void this.shut(generation);
      });
    });
    generation.gone.catch(() => undefined); // observed by the renders that race against it
    generation.watchdog = watchBrowser(
      () => launched.browser.version(),
      this.hangTimeoutMs,
      () => {
        this.warn(
          `the browser (pid ${launched.pid}) did not answer for ${this.hangTimeoutMs / 1000} s: killed it; renders in flight on it are tried once more on a new one`,
        );
        void this.kill(generation.number);
      },
      launched.pid === undefined ? undefined : browserCpuReader(launched.pid),
    );
    await this.record?.add(launched);
    return launched;
  }

  /** Stop handing out a browser that has seen its renders; it closes once its last render lets go. */
  private retire(generation: Generation): void {
    this.observe('recycled');
    this.current = undefined;
    if (generation.holds > 0) this.retiring.set(generation.number, generation);
    else void this.shut(generation);
  }

  private forget(generation: Generation): void {
    if (this.current === generation) this.current = undefined;
    this.retiring.delete(generation.number);
  }

  private async hosted(generation: Generation): Promise<HostedBrowser> {
    const { browser } = await generation.launching;
    return { browser, generation: generation.number, gone: generation.gone! };
  }

  private async shut(generation: Generation, kill = false): Promise<void> {
    generation.closing = true;
    const launched = await generation.launching.catch(() => undefined);
    generation.watchdog?.stop();
    if (!launched) return;
    await launched.close(kill);
    await this.record?.remove(launched.pid);
  }
}
