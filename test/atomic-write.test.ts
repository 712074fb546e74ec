/**
 * writeFileAtomic: readers see nothing or the whole file, and a writer never removes a file that is
 * not its own. Its temporary names are made without crypto (pid, time, a count, Math.random), so a
 * clash is forced here by fixing the clock and the random part; nothing else is mocked.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { writeFileAtomic } from '../src/atomic-write.js';

const folders: string[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});

async function folder(): Promise<string> {
  const made = await mkdtemp(join(tmpdir(), 'pdfrender-atomic-'));
  folders.push(made);
  return made;
}

describe('writeFileAtomic', () => {
  it('writes the whole file and leaves no temporary file beside it', async () => {
    const dir = await folder();
    await writeFileAtomic(join(dir, 'out.pdf'), Buffer.from('%PDF-1.7 whole'));
    expect(await readFile(join(dir, 'out.pdf'), 'utf8')).toBe('%PDF-1.7 whole');
    expect(await readdir(dir)).toEqual(['out.pdf']);
  });

  it("fails on a temporary name another writer holds, and leaves that writer's file alone", async () => {
    const dir = await folder();
    vi.spyOn(Date, 'now').mockReturnValue(0);
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    // The names this process would make next, for every count up to a bound (the count is the
    // module's, shared with the writes before this one), each already another writer's.
    const taken = (count: number) => `.out.pdf.${process.pid}-0-${count}-${(0.5).toString(36).slice(2, 10)}.tmp`;
    for (let count = 1; count < 50; count += 1) await writeFile(join(dir, taken(count)), 'the other writer');
    await expect(writeFileAtomic(join(dir, 'out.pdf'), Buffer.from('mine'))).rejects.toMatchObject({ code: 'EEXIST' });
    const others = (await readdir(dir)).filter((name) => name.endsWith('.tmp'));
    expect(others).toHaveLength(49);
    for (const name of others) expect(await readFile(join(dir, name), 'utf8')).toBe('the other writer');
  });
});
