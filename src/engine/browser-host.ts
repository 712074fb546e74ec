/**
 * Keeps one warm browser: launched on first use, relaunched after it dies, killed when it hangs,
 * and replaced by a fresh one after a number of renders (browser-wide memory and state, such as
 * the GPU and network processes, only ever grow). Each launch is a new generation, so pages of an
 * old browser are never handed out again; a replaced browser finishes the renders on its pages
 * before it is closed, so a recycle never fails a render.
 */
import type { Browser } from 'puppeteer-core';
import type { BrowserRecord } from './browser-record.js';
import { launchBrowser, type LaunchedBrowser } from './launch.js';
import { sweepStaleProfiles } from './profile-owner.js';

export interface HostedBrowser {
  browser: Browser;
  generation: number;
}

export interface BrowserHostOptions {
  /** Launch a fresh browser for new pages after this many renders; default never. */
  recycleAfter?: number;
  /** Where running browsers are written down (the server's data dir); leftovers are reaped before the first launch. */
  record?: BrowserRecord;
}

/** One launched browser and the renders it has seen. */
interface Generation {
  number: number;
  launching: Promise<LaunchedBrowser>;
  /** Renders given this browser so far (counts toward the recycle). */
  renders: number;
  /** Renders holding one of its pages right now; a retired browser closes when this reaches 0. */
  holds: number;
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

  constructor(
    private readonly executablePath: string,
    /** Extra Chromium flags, asked for at each launch (the egress proxy starts with the first). */
    private readonly extraArgs: () => Promise<readonly string[]> = async () => [],
    options: BrowserHostOptions = {},
  ) {
    this.recycleAfter = options.recycleAfter ?? Infinity;
    this.record = options.record;
  }

  /** The live browser, launching one if there is none (or the last one died). */
  async get(): Promise<HostedBrowser> {
    if (this.closed) throw new Error('the render engine is closed');
    const generation = this.current ?? this.launch();
    return { browser: (await generation.launching).browser, generation: generation.number };
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
      return { browser: (await generation.launching).browser, generation: generation.number };
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

  /** Kill the browser of `generation` outright (it stopped answering); the next render relaunches. */
  async kill(generation: number): Promise<void> {
    const target = this.current?.number === generation ? this.current : this.retiring.get(generation);
    if (!target) return;
    this.forget(target);
    const launched = await target.launching.catch(() => undefined);
    launched?.browser.process()?.kill('SIGKILL');
    await this.shut(target);
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
    const number = ++this.generation;
    const launching = (async () => {
      // Whatever a killed earlier run left is cleared with this run's first browser: the browsers its
      // data dir recorded (serve) before it starts, and profile folders whose owner is gone (any run)
      // while it starts, so a cold CLI run does not wait on the temp folder.
      const swept = (this.swept ??= sweepStaleProfiles().catch(() => undefined));
      await (this.reaped ??= this.record?.reapLeftovers().catch(() => undefined) ?? Promise.resolve());
      const launched = await launchBrowser(this.executablePath, await this.extraArgs());
      await swept;
      // A browser that dies (crash, OOM kill) is forgotten, so the next render relaunches.
      launched.browser.once('disconnected', () => {
        this.forget(generation);
        void this.shut(generation);
      });
      await this.record?.add(launched);
      return launched;
    })();
    const generation: Generation = { number, launching, renders: 0, holds: 0 };
    // A failed launch must not stick: the next render tries again.
    generation.launching.catch(() => this.forget(generation));
    this.current = generation;
    return generation;
  }

  /** Stop handing out a browser that has seen its renders; it closes once its last render lets go. */
  private retire(generation: Generation): void {
    this.current = undefined;
    if (generation.holds > 0) this.retiring.set(generation.number, generation);
    else void this.shut(generation);
  }

  private forget(generation: Generation): void {
    if (this.current === generation) this.current = undefined;
    this.retiring.delete(generation.number);
  }

  private async shut(generation: Generation, kill = false): Promise<void> {
    const launched = await generation.launching.catch(() => undefined);
    if (!launched) return;
    await launched.close(kill);
    await this.record?.remove(launched.pid);
  }
}
