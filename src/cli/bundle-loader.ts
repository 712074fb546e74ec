/**
 * Runs the CLI from its bundle, dist/bundle/cli.cjs (scripts/bundle.mjs), with the V8 code cache
 * made beside it at build time: one file to read and next to nothing to compile, where dist/cli/ is
 * a few hundred modules to resolve and compile at every start. A script, not a module, because Node
 * 20 takes a code cache only for scripts. The cache lives in the package's own dist/, written by its
 * build, so it is trusted as the code is; one that does not fit this Node (another V8) is refused by
 * V8 and the bundle is compiled as usual.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import type * as Cli from './main.js';

/** The bundle (and its code cache beside it, `<bundle>.cache`). */
export const bundlePath = join(dirname(fileURLToPath(import.meta.url)), '..', 'bundle', 'cli.cjs');

export interface LoadedBundle {
  /** The bundle's exports: dist/cli/main.js, bundled. */
  cli: typeof Cli;
  /** Whether V8 took the code cache. */
  cacheUsed: boolean;
  /** Write the code cache of everything compiled so far (the build does, after loading the render command). */
  saveCache(): void;
}

/**
 * The bundle's wrapper: a CommonJS module's, and `__bundleImport` for its import() calls, which the
 * build rewrote (scripts/bundle.mjs). Node 20 runs no import() in a script compiled from a code
 * cache, nor one without an experimental flag or warning; an import() here, in a module, is Node's own.
 */
const wrapper = ['(function (exports, require, module, __filename, __dirname, __bundleImport) { ', '\n});'];
const bundleImport = (specifier: string): Promise<unknown> => import(specifier);

/** The bundled CLI, or undefined where there is none (esbuild was not installed at build time). */
export function loadBundle(file: string = bundlePath): LoadedBundle | undefined {
  let source: string;
  try {
    // ASCII (the build makes it so), so latin1 reads it as is, without decoding UTF-8.
    source = readFileSync(file, 'latin1');
  } catch {
    return undefined;
  }
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(`${file}.cache`);
  } catch {
    // no cache: compiled as usual
  }
  const script = new vm.Script(`${wrapper[0]}${source}${wrapper[1]}`, { filename: file, cachedData });
  const module = { exports: {} as typeof Cli };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file), bundleImport);
  return {
    cli: module.exports,
    cacheUsed: cachedData !== undefined && !script.cachedDataRejected,
    saveCache: () => writeFileSync(`${file}.cache`, script.createCachedData()),
  };
}
