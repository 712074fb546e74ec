/**
 * What bin/pdfrender.js loads first, before anything else of pdfrender: the early start (Chromium on
 * its way) and the loader of the bundled CLI. Bundled on its own (dist/bundle/launcher.cjs), so that
 * a render has started Chromium before the CLI's bundle is even read.
 */
export { startEarly } from './early-start.js';
export { loadBundle } from './bundle-loader.js';
