/**
 * Chromium's renderer processes and what memory they hold, read from Linux's /proc (render-memory.ts
 * samples them). Where there is no /proc (not Linux) there are none to read, and nothing is stopped.
 */
import { readFileSync } from 'node:fs';
import { childProcesses as childrenOf } from '../../proc-stat.js';

/**
 * The renderer processes under `zygotes` (Chromium's zygotes start every renderer) and the memory of
 * their own they hold, in bytes: resident anonymous and shared-memory pages. File pages (Chromium's
 * binary, its V8 snapshot, fonts: 82 of an idle renderer's 98 MB of VmRSS here) are shared by every
 * renderer, and would make three idle pages look like 300 MB of documents.
 */
export function renderersOf(zygotes: readonly number[]): { pid: number; rss: number }[] {
  return zygotes.flatMap(childrenOf).flatMap((pid) => {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('--type=renderer')) return [];
      const status = readFileSync(`/proc/${pid}/status`, 'latin1');
      const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
      return [{ pid, rss: (kb('RssAnon') + kb('RssShmem')) * 1024 }];
    } catch {
      return []; // gone meanwhile
    }
  });
}

/**
 * The processes that start the renderers of the browser started as `pid` (a wrapper script's child,
 * or itself): its zygotes, or the browser itself where it runs without them (--no-zygote). Read once
 * per browser, as they live as long as it does; walking every thread of the browser at each sample
 * cost 15 ms of a loaded machine's time against 2 for the zygotes alone.
 */
export function zygotesOf(pid: number): number[] {
  const zygotes: number[] = [];
  const browsers: number[] = [];
  const visit = (each: number) => {
    try {
      const type = /--type=([a-z-]+)/.exec(readFileSync(`/proc/${each}/cmdline`, 'latin1'))?.[1];
      if (type === 'zygote') zygotes.push(each);
      if (type === undefined) browsers.push(each);
      // Only the browser (no --type) and zygotes start processes that lead to renderers.
      if (type === undefined || type === 'zygote') childrenOf(each).forEach(visit);
    } catch {
      // Gone meanwhile, or no /proc (not Linux): nothing to read.
    }
  };
  visit(pid);
  return zygotes.length > 0 ? zygotes : browsers;
}
