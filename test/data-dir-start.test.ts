/**
 * A data dir that cannot be used at start (under a file, on /proc, read-only, with a database file
 * that is not one): `pdfrender serve` and `pdfrender webhooks` say so in one line naming the path
 * and what is wrong, exit 2, and change nothing. And a render whose output folder cannot be made
 * ends instead of hanging.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bin } from './support/cli.js';
import { removeTempDirs, tempDir } from './support/files.js';
import { isRoot, mountTmpfs, remountReadOnly, unmount } from './support/storage.js';

afterAll(removeTempDirs);

/** Run the CLI, killing it after `ms` (code null then): a start that hangs must fail the test, not stall it. */
function runWithin(args: string[], ms: number): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe('an unusable data dir at start', () => {
  const refuses = async (dataDir: string, says: RegExp) => {
    for (const args of [
      ['serve', '--port', '0'],
      // add makes the data dir where there is none (the other webhooks commands say there is none).
      ['webhooks', 'add', 'http://127.0.0.1:9/hook', '--allow-private-webhooks'],
    ]) {
      const run = await runWithin([...args, '--data-dir', dataDir], 20_000);
      expect([run.code, run.stderr.trim().split('\n')]).toEqual([2, [expect.stringMatching(says)]]);
    }
  };

  it('under a file: one line naming the path, exit 2', async () => {
    const parent = await tempDir();
    writeFileSync(join(parent, 'file.txt'), 'not a folder');
    await refuses(
      join(parent, 'file.txt', 'data'),
      new RegExp(`^pdfrender: data dir ${parent}/file\\.txt/data: ${parent}/file\\.txt is not a folder$`),
    );
  }, 60_000);

  it('/proc/nope: one line, exit 2, instead of spinning for ever deaf to SIGTERM', async () => {
    await refuses(
      '/proc/nope',
      /^pdfrender: data dir \/proc\/nope: cannot create \/proc\/nope: the file system does not allow it \(ENOENT\)$/,
    );
  }, 60_000);

  it('a database file that is not one: one line naming it, exit 2, the file untouched', async () => {
    const dataDir = await tempDir();
    const garbage = Buffer.from('this is not a database '.repeat(100));
    writeFileSync(join(dataDir, 'pdfrender.db'), garbage);
    await refuses(
      dataDir,
      new RegExp(
        `^pdfrender: ${dataDir}/pdfrender\\.db is not a pdfrender database \\(file is not a database\\); move it away or choose another --data-dir$`,
      ),
    );
    expect(readdirSync(dataDir)).toEqual(['pdfrender.db']);
    expect(readFileSync(join(dataDir, 'pdfrender.db')).equals(garbage)).toBe(true);
  }, 60_000);

  // Root writes through permissions, so the unwritable data dir is a read-only mount.
  it.skipIf(!isRoot)(
    'on a read-only file system: one line naming the path, exit 2, nothing written',
    async () => {
      const dataDir = await tempDir();
      mountTmpfs(dataDir, '1m');
      try {
        remountReadOnly(dataDir);
        await refuses(
          dataDir,
          new RegExp(`^pdfrender: data dir ${dataDir} is not writable: read-only file system \\(EROFS\\)$`),
        );
        expect(readdirSync(dataDir)).toEqual([]);
      } finally {
        unmount(dataDir);
      }
    },
    60_000,
  );
});

describe('an output folder that cannot be made', () => {
  // The same endless native loop as the data dir's, in the CLI's recursive mkdir of its output folder:
  // now found before anything renders (issue 29 §4), a usage error (exit 2) in one line naming the path.
  it('ends the run with one line naming it, instead of spinning for ever', async () => {
    const dir = await tempDir();
    writeFileSync(join(dir, 'page.html'), '<p>page</p>');
    const run = await runWithin(['render', join(dir, 'page.html'), '-o', '/proc/nope/page.pdf'], 30_000);
    expect([run.code, run.stderr.trim().split('\n')]).toEqual([
      2,
      ['pdfrender: cannot write /proc/nope/page.pdf: /proc takes no new file (ENOENT)'],
    ]);
  }, 60_000);
});
