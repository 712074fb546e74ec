/**
 * Chromium processes found through /proc, by the pdfrender profile folder on their command line
 * (the browser and every renderer, zygote and utility process it starts carry it), so tests can
 * tell which browsers a pdfrender process started and whether anything of them is left.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { parseProcStat } from '../../src/proc-stat.js';

function read(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return ''; // the process went away while we looked
  }
}

function pids(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

function parentOf(pid: number): number {
  return parseProcStat(read(`/proc/${pid}/stat`)).parent;
}

function profileOf(pid: number): string | undefined {
  const flag = read(`/proc/${pid}/cmdline`)
    .split('\0')
    .find((arg) => arg.startsWith('--user-data-dir=') && arg.includes('pdfrender-profile-'));
  return flag?.slice('--user-data-dir='.length);
}

/** The browsers `parent` started: browser pid to its profile folder. */
export function browsersOf(parent: number): Map<number, string> {
  const found = new Map<number, string>();
  for (const pid of pids()) {
    if (parentOf(pid) !== parent) continue;
    const profile = profileOf(pid);
    if (profile) found.set(pid, profile);
  }
  return found;
}

/** Every live process (browser, renderers, helpers) whose command line names `profileDir`. */
export function processesUsing(profileDir: string): number[] {
  return pids().filter(
    (pid) =>
      pid !== process.pid &&
      read(`/proc/${pid}/cmdline`)
        .split('\0')
        .some((arg) => arg.includes(profileDir)),
  );
}

/** Wait up to `ms` for every process of `profileDir` to go; answers those still there. */
export async function remainingAfter(profileDir: string, ms: number): Promise<number[]> {
  const until = Date.now() + ms;
  let left = processesUsing(profileDir);
  while (left.length > 0 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    left = processesUsing(profileDir);
  }
  return left;
}

/** The one browser `parent` started, once it runs (up to `ms`); undefined if none or several did. */
export async function onlyBrowserOf(
  parent: number,
  ms = 10_000,
): Promise<{ pid: number; profile: string } | undefined> {
  let found = browsersOf(parent);
  for (const until = Date.now() + ms; found.size !== 1 && Date.now() < until; found = browsersOf(parent))
    await new Promise((resolve) => setTimeout(resolve, 50));
  const [entry] = found.size === 1 ? [...found] : [];
  return entry && { pid: entry[0], profile: entry[1] };
}

const leftovers: Array<() => void> = [];

/** SIGKILL `pid`, quiet if it is gone. */
export function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Have `killLeftovers` kill `pid`, and every process of `profileDir` when given: what a failed test left running. */
export function killLater(pid: number | undefined, profileDir?: string): void {
  leftovers.push(() => {
    if (pid) killQuietly(pid);
    if (profileDir) processesUsing(profileDir).forEach(killQuietly);
  });
}

/** Kill everything handed to `killLater` (call it in afterAll), so one failure does not leak browsers. */
export function killLeftovers(): void {
  for (const kill of leftovers.splice(0)) kill();
}

/** The state letter of process `pid` from /proc (T: stopped), or '' once it is gone. */
export function stateOf(pid: number): string {
  return parseProcStat(read(`/proc/${pid}/stat`)).state;
}
