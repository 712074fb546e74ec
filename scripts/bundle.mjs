#!/usr/bin/env node
/**
 * `npm run build`, after tsc: bundles the compiled CLI into dist/bundle/ with esbuild, so that a cold
 * `pdfrender render` loads a dozen files instead of several hundred (puppeteer alone is over a
 * hundred). bin/pdfrender.js runs the bundle when there is one and dist/cli/ otherwise, so without
 * esbuild installed this step says so, leaves no bundle, and pdfrender runs as compiled.
 */
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const outdir = join(dist, 'bundle');
// A bundle left from an earlier build would run instead of what tsc just compiled.
rmSync(outdir, { recursive: true, force: true });

let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  console.error('bundle: esbuild is not installed, so pdfrender runs unbundled (a slower cold start)');
  process.exit(0);
}

await esbuild.build({
  // Two entries, one module graph: the early start and the CLI share the browser it starts.
  entryPoints: { main: join(dist, 'cli/main.js'), 'early-start': join(dist, 'cli/early-start.js') },
  outdir,
  bundle: true,
  // Each command, and whatever only it needs, stays a chunk of its own, loaded when it runs.
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: [
    // Native addons and optional native parts, found at run time beside their packages.
    'better-sqlite3',
    'pg-native',
    'bufferutil',
    'utf-8-validate',
    // Only `serve` (S3, PostgreSQL) and `setup` (browser downloads) use these, as they always have.
    '@aws-sdk/*',
    '@smithy/*',
    'pg',
    '@puppeteer/browsers',
    // Puppeteer's WebDriver BiDi and WebSocket transports: pdfrender speaks CDP over a pipe.
    'chromium-bidi',
    'ws',
  ],
  // CommonJS dependencies call require() for Node's own modules.
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  logLevel: 'warning',
});
