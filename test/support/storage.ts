/**
 * Real storage faults for the tests: another process holding a database's write lock, and (as root)
 * a small tmpfs mounted as a data dir, filled to the last byte and freed again, or remounted read-only.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Whether this process may mount file systems (CI runs the tests as root). */
export const isRoot = process.getuid?.() === 0;

/** A child process (node + better-sqlite3) that holds the write lock of `dbPath` until released. */
export async function holdWriteLock(dbPath: string): Promise<{ release(): Promise<void> }> {
  const child = spawn(process.execPath, [resolve(import.meta.dirname, 'hold-lock.mjs'), dbPath], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let output = '';
  const lookers: Array<() => void> = [];
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    for (const look of lookers) look();
  });
  const saw = (word: string) =>
    new Promise<void>((resolvePromise, reject) => {
      const look = () => output.includes(word) && resolvePromise();
      lookers.push(look);
      child.on('close', () => reject(new Error(`the lock holder exited before saying "${word}": ${output}`)));
      look();
    });
  const exited = new Promise((resolvePromise) => child.on('close', resolvePromise));
  await saw('held');
  return {
    async release() {
      child.stdin.end('release\n');
      await saw('released');
      await exited;
    },
  };
}

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${result.stderr}`);
}

/** Mount a tmpfs of `size` ("16m") on `dir`. */
export function mountTmpfs(dir: string, size: string): void {
  run('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
}

/** Make the file system mounted on `dir` read-only. */
export function remountReadOnly(dir: string): void {
  run('mount', ['-o', 'remount,ro', dir]);
}

/** Unmount `dir` (lazily: a process that still has a file open there lets go when it exits). */
export function unmount(dir: string): void {
  spawnSync('umount', ['-l', dir]);
}

/** Fill the file system of `dir` to the last byte with a file; returns a function that removes it again. */
export function fillUp(dir: string): () => void {
  const path = join(dir, 'filler');
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(1024 * 1024, 7);
  try {
    for (let size = chunk.length; size >= 512;) {
      try {
        writeSync(fd, chunk, 0, size);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
        size /= 2;
      }
    }
  } finally {
    closeSync(fd);
  }
  return () => rmSync(path, { force: true });
}
