#!/usr/bin/env node
/**
 * `npm run build`, after tsc: bundles the compiled CLI into one script, dist/bundle/cli.cjs, with
 * esbuild, and makes its V8 code cache (cli.cjs.cache) by rendering with it (warm-code-cache.mjs), so
 * that a cold `pdfrender render` reads two files instead of resolving and compiling several hundred
 * modules (bundle-loader.ts); and the launcher (launcher.ts) into dist/bundle/launcher.cjs.
 * bin/pdfrender.js runs the bundles when they are there and dist/cli/ otherwise, so without esbuild
 * installed this step says so, leaves no bundle, and pdfrender runs as compiled.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const { warmCodeCache } = await import('./warm-code-cache.mjs');
const { bundlePath, loadBundle } = await import(pathToFileURL(join(dist, 'cli/bundle-loader.js')).href);
// A bundle left from an earlier build would run instead of what tsc just compiled.
rmSync(dirname(bundlePath), { recursive: true, force: true });

let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  console.error('bundle: esbuild is not installed, so pdfrender runs unbundled (a slower cold start)');
  process.exit(0);
}

const options = {
  bundle: true,
  // Scripts (CommonJS), since Node 20 takes a code cache only for scripts; the commands' own modules
  // stay behind functions that run when the command does.
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // ASCII, so that bundle-loader.ts reads it as latin1 (a copy) rather than decoding UTF-8.
  charset: 'ascii',
  // program.ts finds package.json, and bundle-loader.ts the bundle, from their own URL: the bundle's,
  // one folder below dist/ as dist/cli/ is.
  define: { 'import.meta.url': '__bundleUrl' },
  banner: { js: "var __bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
  logLevel: 'warning',
};
// The CLI, and the launcher bin/pdfrender.js loads before it (small: compiled in a millisecond).
const cli = await esbuild.build({
  ...options,
  metafile: true,
  entryPoints: [join(dist, 'cli/main.js')],
  outfile: bundlePath,
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
    // ESM only: loaded with import() when a terminal shows a spinner.
    'ora',
    // Loaded with import() only for a request with metadata or page 1's own templates (finish-pdf.ts).
    '@cantoo/pdf-lib',
    // OpenTelemetry's SDK and exporter: loaded with import() only when OTEL_* turn tracing on (cli/serve/start-tracing.ts).
    '@opentelemetry/sdk-trace-node',
    '@opentelemetry/sdk-trace-base',
    '@opentelemetry/exporter-trace-otlp-http',
    '@opentelemetry/resources',
    // Puppeteer's WebDriver BiDi and WebSocket transports: pdfrender speaks CDP over a pipe.
    'chromium-bidi',
    'ws',
  ],
});
await esbuild.build({
  ...options,
  entryPoints: [join(dist, 'cli/launcher.js')],
  outfile: join(dirname(bundlePath), 'launcher.cjs'),
});

// Node 20 runs no import() in a script compiled from a code cache: the bundle's import() calls (of
// packages left out of it) go through __bundleImport, which bundle-loader.ts passes in.
const [, output] = Object.entries(cli.metafile.outputs).find(([path]) =>
  bundlePath.endsWith(path.replace(/^(\.\.\/)+/, '')),
);
let code = readFileSync(bundlePath, 'utf8');
for (const { path } of output.imports.filter((entry) => entry.kind === 'dynamic-import' && entry.external)) {
  code = code.replaceAll(`import(${JSON.stringify(path)})`, `__bundleImport(${JSON.stringify(path)})`);
}
// Any other import() (of a name in a variable, say) would fail only when it ran: refused here.
if (/(^|[^\w$.@])import\(\s*["'`\w$]/m.test(code.replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, '')))
  throw new Error(`bundle: an import() is left in ${bundlePath}`);
// esbuild's ascii charset leaves comments and regular expressions as they are: any character left
// beyond ASCII becomes a \u escape, which means the same in a regular expression (and a comment).
// eslint-disable-next-line no-control-regex -- every character outside ASCII, control characters being inside it
code = code.replace(/[^\x00-\x7f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
writeFileSync(bundlePath, code);

// The code cache holds what is compiled by the time it is written: with a browser, every function a
// render calls (warm-code-cache.mjs); without one (a first `npm ci`, before `pdfrender setup`), the
// render command's modules, loaded as `pdfrender render --help` loads them.
const loaded = loadBundle();
const notWarmed = await warmCodeCache(loaded.cli, process.env);
if (notWarmed) {
  console.error(
    `bundle: rendered nothing to fill the code cache with (${notWarmed}); it holds the render command's modules only, for a slower cold render`,
  );
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  const io = { stdout: sink, stderr: sink, env: {}, cwd: process.cwd(), signal: new AbortController().signal };
  if ((await loaded.cli.runCli(['render', '--help'], io)) !== 0)
    throw new Error('bundle: the bundled CLI failed `render --help`');
}
loaded.saveCache();

// The cache is only worth its file if a fresh process takes it.
const check = `import(${JSON.stringify(pathToFileURL(join(dist, 'cli/bundle-loader.js')).href)}).then((m) => process.stdout.write(String(m.loadBundle().cacheUsed)))`;
if (execFileSync(process.execPath, ['-e', check], { encoding: 'utf8' }) !== 'true')
  console.error('bundle: a fresh Node refused the code cache; the bundle runs without it');
