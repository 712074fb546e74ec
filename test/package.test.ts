/**
 * The package as a user gets it: `npm pack`, installed from the tarball into a scratch project,
 * and used from TypeScript as an ES module and through require(), type-checked against the shipped
 * declarations (dependencies' included) and run against real Chromium.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from './support/files.js';

const root = resolve(import.meta.dirname, '..');
const tsc = join(root, 'node_modules/.bin/tsc');
const run = (command: string, args: string[], cwd: string) =>
  execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/**
 * Give `project` the runtime dependencies this project's own install already has: every top-level
 * package its lock file does not mark dev-only, hard-linked where the file system allows (copied
 * where not). npm then extracts only the tarball and checks that what is there satisfies its
 * dependencies (fetching whatever does not), instead of unpacking 150 MB again (18 s of the test's
 * 36 s). Resolving the tree from the registry is what the project's own `npm ci` proves; what this
 * test proves stays: the tarball installs, and devDependencies are absent, so a runtime or type
 * import of one fails here as it would for a user.
 */
function seedRuntimeDependencies(project: string): void {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean }>;
  };
  const runtime = Object.entries(lock.packages)
    .filter(([path, entry]) => /^node_modules\/(@[^/]+\/)?[^/]+$/.test(path) && !entry.dev)
    .map(([path]) => path);
  expect(runtime).toEqual(expect.arrayContaining(['node_modules/puppeteer-core', 'node_modules/zod']));
  try {
    run('cp', ['-al', '--parents', ...runtime, project], root);
  } catch {
    run('cp', ['-a', '--parents', ...runtime, project], root);
  }
}

afterAll(removeTempDirs);

describe('the packed package', () => {
  it('installs from its tarball and works from TypeScript, as a module and through require()', async () => {
    const work = await tempDir();
    // dist/ is built by `npm test` before the suite; packing runs no scripts of its own.
    const tarball = join(
      work,
      run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', work], root).trim().split('\n').pop()!,
    );
    const listed = run('tar', ['tzf', tarball], work)
      .split('\n')
      .filter(Boolean)
      .map((path) => path.replace(/^package\//, ''));
    expect(listed).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'package.json',
        'bin/pdfrender.js',
        'dist/index.js',
        'dist/index.d.ts',
        'src/index.ts',
      ]),
    );
    expect(listed.some((path) => path.startsWith('test/') || path.startsWith('bench/'))).toBe(false);

    const project = join(work, 'scratch');
    run('mkdir', ['-p', project], work);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
    seedRuntimeDependencies(project);
    // From npm's cache where it can (the suite's own install filled it); no install scripts, as none is needed by the library.
    run(
      'npm',
      ['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', '--silent', tarball],
      project,
    );

    // Every source map in the package points at a file the package has.
    const installed = join(project, 'node_modules/pdfrender');
    const maps = listed.filter((path) => path.endsWith('.js.map'));
    expect(maps.length).toBeGreaterThan(50);
    for (const map of maps) {
      for (const source of JSON.parse(readFileSync(join(installed, map), 'utf8')).sources as string[]) {
        expect(readdirSync(dirname(resolve(installed, dirname(map), source))), `${map} -> ${source}`).toContain(
          source.split('/').pop(),
        );
      }
    }

    writeFileSync(
      join(project, 'esm.mts'),
      `import { createEngine, parseRenderRequest, requireBrowser, isPdfRenderError, type NetworkPolicy, type RenderResult } from 'pdfrender';
const network: NetworkPolicy = { network: 'public' };
const engine = createEngine({ executablePath: requireBrowser().executablePath, concurrency: 1, network });
try {
  const result: RenderResult = await engine.render(parseRenderRequest({ htmlContent: '<h1>From the tarball</h1>' }));
  console.log(result.pages, Buffer.from(result.pdf.subarray(0, 5)).toString());
  try {
    parseRenderRequest({});
  } catch (error) {
    if (isPdfRenderError(error)) console.log(error.code);
  }
} finally {
  await engine.close();
}
`,
    );
    writeFileSync(
      join(project, 'cjs.cts'),
      `import pdfrender = require('pdfrender');\nconsole.log(pdfrender.parseRenderRequest({ htmlContent: '<p>x</p>', pageRanges: '2-' }).pageRanges);\n`,
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          skipDefaultLibCheck: true,
          outDir: 'out',
          types: ['node'],
          typeRoots: [join(root, 'node_modules/@types')],
        },
        files: ['esm.mts', 'cjs.cts'],
      }),
    );
    // Type-checked against the shipped declarations and every dependency's (no skipLibCheck); only
    // TypeScript's own lib files (lib.dom.d.ts alone is 2 s) are taken as checked.
    run(tsc, ['-p', 'tsconfig.json'], project);
    expect(run(process.execPath, ['out/esm.mjs'], project).trim().split('\n')).toEqual([
      '1 %PDF-',
      'VALIDATION_FAILED',
    ]);
    expect(run(process.execPath, ['--no-warnings', 'out/cjs.cjs'], project).trim()).toBe('2-');
  }, 180_000);
});
