/**
 * raceUntil (src/race.ts): racing a render against its page's crash and its browser's end, which
 * live for a thousand renders and mostly never settle, must not keep each render's result (its
 * whole PDF) alive as Promise.race did: measured with a heap snapshot, every PDF of a page's
 * renders stayed in memory until the page was recycled (115 kB a tagged invoice, 220 MB by 2,000).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { raceUntil } from '../src/race.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

// How many of `count` results raced by `race` against a promise that never settles are still alive after a full GC.
async function stillAlive(count: number, race: (work: Promise<object>, never: Promise<never>) => Promise<object>) {
  const never = new Promise<never>(() => undefined);
  const refs: WeakRef<object>[] = [];
  for (let index = 0; index < count; index += 1) {
    const result = { pdf: new Uint8Array(64 * 1024) };
    refs.push(new WeakRef(result));
    await race(Promise.resolve(result), never);
  }
  for (let round = 0; round < 3; round += 1) {
    await new Promise(setImmediate);
    gc();
  }
  return refs.filter((ref) => ref.deref() !== undefined).length;
}

describe('raceUntil', () => {
  it('lets go of each result once its work settled, where Promise.race keeps them all', async () => {
    expect(await stillAlive(20, (work, never) => Promise.race([work, never]))).toBe(20);
    expect(await stillAlive(20, (work, never) => raceUntil(work, [never]))).toBeLessThanOrEqual(1);
  });

  it("gives the work's value or error, or the long-lived promise's error if it comes first", async () => {
    const never = new Promise<never>(() => undefined);
    await expect(raceUntil(Promise.resolve('pdf'), [never])).resolves.toBe('pdf');
    await expect(raceUntil(Promise.reject(new Error('print failed')), [never])).rejects.toThrow('print failed');
    let crash!: (error: Error) => void;
    const crashed = new Promise<never>((_, reject) => (crash = reject));
    const racing = raceUntil(new Promise(() => undefined), [never, crashed]);
    crash(new Error('the page crashed'));
    await expect(racing).rejects.toThrow('the page crashed');
    // A crash after the work settled changes nothing.
    let late!: (error: Error) => void;
    const later = new Promise<never>((_, reject) => (late = reject));
    const settled = raceUntil(Promise.resolve(1), [later]);
    await expect(settled).resolves.toBe(1);
    late(new Error('too late'));
    await new Promise(setImmediate);
  });
});
