#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (built by `npm run build`, run by `prepare`), bundled
// into dist/bundle/ where esbuild was there to do it (fewer files to load), else in dist/cli/.
import { existsSync } from 'node:fs';

const dir = existsSync(new URL('../dist/bundle/main.js', import.meta.url)) ? '../dist/bundle/' : '../dist/cli/';
// A render starts Chromium first, so that it comes up while the rest of pdfrender loads.
await import(`${dir}early-start.js`).then(
  (early) => early.startEarly(process.argv.slice(2), process.env),
  () => undefined, // not built: main.js says so below
);
import(`${dir}main.js`).catch((error) => {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist')) {
    console.error('pdfrender: not built yet; run `npm run build` in the package directory');
    process.exit(2);
  }
  throw error;
});
