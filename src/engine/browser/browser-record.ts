/**
 * Running browsers written down in the server's data dir (one small file per browser), so a server
 * started after its predecessor was killed clears what that one left: a browser that did not quit
 * when pdfrender died (Chromium quits when its pipe closes, unless it is hung or stopped), and the
 * profile folder that a killed pdfrender never got to delete.
 *
 * A file, not a scan of every process: only browsers this data dir's servers started are touched,
 * and each is checked against /proc before anything is killed, since its pid may have been reused.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { writeFileAtomic } from '../../atomic-write.js';
import { makeFolder } from '../../make-folder.js';
import { parseProcStat } from '../../proc-stat.js';
import { killGroup } from './browser-process.js';
import { isAlive, profilePrefix } from './profile-owner.js';

/** What is written down for each running browser. */
interface Entry {
  /** The pdfrender process that launched the browser. */
  owner: number;
  pid: number;
  profileDir: string;
}

export interface BrowserRecord {
  /** Write down a browser that just started. Best effort: a browser is never refused for it. */
  add(browser: { pid: number | undefined; profileDir: string }): Promise<void>;
  /** Strike out a browser that has been closed. */
  remove(pid: number | undefined): Promise<void>;
  /** Kill the browsers of runs that are gone and remove their profiles; answers the pids killed. */
  reapLeftovers(): Promise<number[]>;
}

/** A record kept in `dir` (the server's `<data dir>/browsers`) for the process `owner`. */
export function browserRecord(dir: string, owner: number = process.pid): BrowserRecord {
  const fileOf = (pid: number) => join(dir, `${pid}.json`);
  return {
    async add({ pid, profileDir }) {
      if (!pid) return;
      const entry: Entry = { owner, pid, profileDir };
      // Losing the record only loses the safety net for a hung browser; the render goes on.
      await writeFileAtomic(fileOf(pid), new TextEncoder().encode(`${JSON.stringify(entry)}\n`)).catch(() => undefined);
    },
    async remove(pid) {
      if (pid) await rm(fileOf(pid), { force: true }).catch(() => undefined);
    },
    async reapLeftovers() {
      try {
        makeFolder(dir); // not Node's recursive mkdir, which can spin for ever (see make-folder.ts)
      } catch {
        // no folder, no leftovers to find
      }
      const killed: number[] = [];
      for (const name of await readdir(dir).catch(() => [] as string[])) {
        if (!/^\d+\.json$/.test(name)) continue;
        const entry = parseEntry(await readFile(join(dir, name), 'utf8').catch(() => ''));
        if (entry) {
          const state = await browserState(entry);
          // Another server on the same data dir, still alive and still the browser's parent: its own.
          if (state === 'in use') continue;
          if (state === 'left over') {
            killGroup(entry.pid);
            killed.push(entry.pid);
          }
          // A pid now held by something else (or unverifiable) means the browser is gone, but
          // its profile is left alone unless we know: only a killed or vanished browser's goes.
          if (state !== 'unknown' && basename(entry.profileDir).startsWith(profilePrefix)) {
            await rm(entry.profileDir, { recursive: true, force: true }).catch(() => undefined);
          }
        }
        await rm(join(dir, name), { force: true }).catch(() => undefined);
      }
      return killed;
    },
  };
}

function parseEntry(text: string): Entry | undefined {
  try {
    const value = JSON.parse(text) as Partial<Entry>;
    if (
      Number.isInteger(value.owner) &&
      Number.isInteger(value.pid) &&
      (value.pid ?? 0) > 1 &&
      typeof value.profileDir === 'string'
    )
      return value as Entry;
  } catch {
    // a torn or foreign file: dropped below
  }
  return undefined;
}

/**
 * 'gone': no such process. 'in use': our Chromium, its launching server still its parent.
 * 'left over': our Chromium (its command line names the recorded profile) whose server is gone.
 * 'unknown': the pid is alive but not provably our browser (reused, or no /proc).
 */
async function browserState(entry: Entry): Promise<'gone' | 'in use' | 'left over' | 'unknown'> {
  if (!isAlive(entry.pid)) return 'gone';
  // A zombie has exited (its parent died and nobody reaped it yet, common where pid 1 is no init)
  // and has an empty command line: it is gone, not unknown.
  const { state, parent } = parseProcStat(await readFile(`/proc/${entry.pid}/stat`, 'utf8').catch(() => ''));
  if (state === 'Z') return 'gone';
  const cmdline = await readFile(`/proc/${entry.pid}/cmdline`, 'utf8').catch(() => '');
  if (!cmdline.split('\0').includes(`--user-data-dir=${entry.profileDir}`)) return 'unknown';
  return parent === entry.owner ? 'in use' : 'left over';
}
