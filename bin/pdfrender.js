#!/usr/bin/env node
// Thin launcher, a CommonJS script (bin/package.json): Node starts one sooner than a module. The CLI
// lives in dist/: bundled, with its code cache, in dist/bundle/ where esbuild made it at build time
// (scripts/bundle.mjs), and as compiled by tsc in dist/cli/ (`npm run build`, run by `prepare`).
'use strict';

const argv = process.argv.slice(2);

/** The launcher (early start, bundle loader): bundled, or as compiled. */
async function launcher() {
  try {
    return require('../dist/bundle/launcher.cjs');
  } catch (error) {
    if (error.code !== 'MODULE_NOT_FOUND') throw error;
    return import('../dist/cli/launcher.js');
  }
}

async function load() {
  try {
    const { startEarly, loadBundle } = await launcher();
    // A render starts Chromium first, so that it comes up while the rest of pdfrender loads.
    await startEarly(argv, process.env);
    return loadBundle()?.cli ?? (await import('../dist/cli/main.js'));
  } catch (error) {
    if (error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist')) {
      console.error('pdfrender: not built yet; run `npm run build` in the package directory');
      process.exit(2);
    }
    throw error;
  }
}

load().then((cli) => cli.main(argv));
