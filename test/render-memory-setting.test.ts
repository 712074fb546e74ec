/**
 * --max-render-memory as `serve` and `render` read it: a size with a unit, a quarter of the
 * machine's memory when unset (the engine's default), and never so small that every render stops.
 */
import { describe, expect, it } from 'vitest';
import { loadServeConfig } from '../src/server/config.js';

describe('--max-render-memory', () => {
  it('reads sizes with units, from the flag or PDFRENDER_MAX_RENDER_MEMORY', () => {
    expect(loadServeConfig({ maxRenderMemory: '512MB' }, {}, '/srv').maxRenderMemory).toBe(512 * 2 ** 20);
    expect(loadServeConfig({}, { PDFRENDER_MAX_RENDER_MEMORY: '6GB' }, '/srv').maxRenderMemory).toBe(6 * 2 ** 30);
    expect(loadServeConfig({}, {}, '/srv').maxRenderMemory).toBeUndefined();
  });

  it('refuses a limit under 64MB, naming the flag', () => {
    for (const value of ['1kb', '6', '63MB'])
      expect(() => loadServeConfig({ maxRenderMemory: value }, {}, '/srv')).toThrow(
        /--max-render-memory \(PDFRENDER_MAX_RENDER_MEMORY\): must be at least 64MB/,
      );
  });
});
