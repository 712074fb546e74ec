/**
 * Keeps one warm browser: launched on first use, relaunched after it dies, killed when it hangs.
 * Each launch is a new generation, so pages of a dead browser are never handed out again.
 */
import type { Browser } from 'puppeteer-core';
import { launchBrowser, type LaunchedBrowser } from './launch.js';

export interface HostedBrowser {
  browser: Browser;
  generation: number;
}

export class BrowserHost {
  private current: Promise<LaunchedBrowser & { generation: number }> | undefined;
  private generation = 0;
  private closed = false;

  constructor(
    private readonly executablePath: string,
    /** Extra Chromium flags, asked for at each launch (the egress proxy starts with the first). */
    private readonly extraArgs: () => Promise<readonly string[]> = async () => [],
  ) {}

  /** The live browser, launching one if there is none (or the last one died). */
  async get(): Promise<HostedBrowser> {
    if (this.closed) throw new Error('the render engine is closed');
    if (!this.current) {
      const generation = ++this.generation;
      const launching = this.extraArgs().then((args) => launchBrowser(this.executablePath, args)).then((launched) => {
        // A browser that dies (crash, OOM kill) is forgotten, so the next render relaunches.
        launched.browser.once('disconnected', () => {
          if (this.generation === generation) this.current = undefined;
          void launched.close();
        });
        return { ...launched, generation };
      });
      this.current = launching;
      // A failed launch must not stick: the next render tries again.
      launching.catch(() => {
        if (this.current === launching) this.current = undefined;
      });
    }
    const { browser, generation } = await this.current;
    return { browser, generation };
  }

  /** True when `generation` is the browser currently in use. */
  isCurrent(generation: number): boolean {
    return this.current !== undefined && this.generation === generation;
  }

  /** Kill the browser of `generation` outright (it stopped answering); the next render relaunches. */
  async kill(generation: number): Promise<void> {
    if (!this.current || this.generation !== generation) return;
    const launched = await this.current.catch(() => undefined);
    this.current = undefined;
    launched?.browser.process()?.kill('SIGKILL');
    await launched?.close();
  }

  /** Chromium's version string, launching the browser if needed. */
  async version(): Promise<string> {
    return (await this.get()).browser.version();
  }

  /** Close the browser for good. */
  async close(): Promise<void> {
    this.closed = true;
    const launched = await this.current?.catch(() => undefined);
    this.current = undefined;
    await launched?.close();
  }
}
