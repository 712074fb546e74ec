/**
 * Browser profile folders (about 1.2 MB each, in the temp folder) that a killed pdfrender never got
 * to remove. Each one holds a marker naming the pdfrender process it belongs to, by pid and start
 * time (a pid alone may have been reused since); any later run, CLI or serve, removes the folders
 * whose owner is gone. Only folders named as launch.ts names them, holding a marker this user wrote,
 * are touched: never one of a live run (a concurrent serve or CLI), nor one pdfrender did not make.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { lstat, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Profile folders are ours only with this name (launch.ts makes them), so nothing else is ever deleted. */
export const profilePrefix = 'pdfrender-profile-';

const markerName = 'pdfrender-owner.json';

interface Owner {
  pid: number;
  /** Field 22 of /proc/<pid>/stat (clock ticks since boot); undefined where there is no /proc. */
  started: string | undefined;
}

/** Write the marker naming this process as the owner of the fresh profile folder `dir` (synchronous: it comes before the browser's spawn). */
export function markProfile(dir: string): void {
  const owner: Owner = { pid: process.pid, started: parseStartTime(readStat(process.pid)) };
  writeFileSync(join(dir, markerName), `${JSON.stringify(owner)}\n`, { flag: 'wx' });
}

/** Remove the marked profile folders in `parent` (the temp folder) whose owner has exited; answers those removed. */
export async function sweepStaleProfiles(parent: string = tmpdir()): Promise<string[]> {
  const removed: string[] = [];
  const names = (await readdir(parent).catch(() => [] as string[])).filter((name) => name.startsWith(profilePrefix));
  for (const name of names) {
    const dir = join(parent, name);
    const owner = await markerOf(dir);
    // No marker (being made right now, or by an older pdfrender): left alone.
    if (!owner || (await ownerAlive(owner))) continue;
    await rm(dir, { recursive: true, force: true }).then(
      () => removed.push(dir),
      () => undefined,
    );
  }
  return removed;
}

/** Whether `pid` is a live process (EPERM: it exists, but belongs to someone else). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// The marker of a real folder (not a link to one), written by this user: another user's folder is
// theirs to sweep, and a marker someone else planted there says nothing about us.
async function markerOf(dir: string): Promise<Owner | undefined> {
  const uid = process.getuid?.();
  const [folder, marker] = await Promise.all([
    lstat(dir).catch(() => undefined),
    lstat(join(dir, markerName)).catch(() => undefined),
  ]);
  if (!folder?.isDirectory() || !marker?.isFile() || (uid !== undefined && marker.uid !== uid)) return undefined;
  try {
    const value = JSON.parse(await readFile(join(dir, markerName), 'utf8')) as Partial<Owner>;
    if (Number.isInteger(value.pid) && (value.started === undefined || typeof value.started === 'string'))
      return value as Owner;
  } catch {
    // torn or foreign: left alone
  }
  return undefined;
}

async function ownerAlive(owner: Owner): Promise<boolean> {
  if (!isAlive(owner.pid)) return false;
  // Alive under that pid: the owner only if it started when the owner did. Without /proc to tell,
  // it is taken to be the owner, so a live run's folder is never removed.
  const started = await startTime(owner.pid);
  return owner.started === undefined || started === undefined || started === owner.started;
}

// A zombie (exited, not yet reaped) still has its stat; it counts as gone, since it has no profile in use.
async function startTime(pid: number): Promise<string | undefined> {
  return parseStartTime(await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => ''));
}

function readStat(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return ''; // no /proc
  }
}

function parseStartTime(stat: string): string | undefined {
  if (!stat) return undefined;
  // Fields from the state (3rd) on follow the name's ')'; the name may hold spaces. The start time is the 22nd.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[0] === 'Z' ? 'exited' : fields[19];
}
