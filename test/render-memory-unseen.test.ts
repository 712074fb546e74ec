/**
 * The memory limit says so when it cannot hold: while a render holds a page, a reading that finds
 * no Chromium renderer (no /proc, or /proc mounted with hidepid) for a second of readings makes it
 * warn once. Here the browser's tree is this test's own process, which has no renderer under it.
 */
import { describe, expect, it } from 'vitest';
import { RenderMemory } from '../src/engine/browser/render-memory.js';

describe('the memory limit where no renderer can be read', () => {
  it('warns once, after a second of readings, and stops no process', () => {
    const warnings: string[] = [];
    const killed: number[] = [];
    const memory = new RenderMemory({
      limit: 1,
      roots: () => [process.pid],
      kill: (pid) => killed.push(pid),
      warn: (message) => warnings.push(message),
    });
    for (let reading = 0; reading < 4; reading += 1) memory.sample();
    expect(warnings).toEqual([]);
    for (let reading = 0; reading < 10; reading += 1) memory.sample();
    expect(warnings).toEqual([
      'the memory limit on renders is not enforced here: no Chromium renderer could be read from /proc (not Linux, or /proc mounted with hidepid)',
    ]);
    expect(killed).toEqual([]);
  });

  it('says nothing while no browser runs', () => {
    const warnings: string[] = [];
    const memory = new RenderMemory({ limit: 1, roots: () => [], warn: (message) => warnings.push(message) });
    for (let reading = 0; reading < 10; reading += 1) memory.sample();
    expect(warnings).toEqual([]);
  });
});
