/** Browser discovery: precedence, mistakes in named paths, PATH lookup, and nothing found. */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { browserCachePath, findBrowser, requireBrowser } from '../src/engine/find-browser.js';
import { isPdfRenderError } from '../src/errors.js';
import { removeTempDirs, tempDir } from './support/files.js';

afterAll(removeTempDirs);

/** An executable file at dir/name. */
async function executable(dir: string, name: string, mode = 0o755): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, '#!/bin/sh\n');
  await chmod(path, mode);
  return path;
}

/** An environment in which nothing is found unless the test puts it there. */
async function emptyEnv(): Promise<NodeJS.ProcessEnv> {
  const dir = await tempDir();
  return { PATH: dir, XDG_CACHE_HOME: dir };
}

describe('findBrowser', () => {
  it('prefers --chrome, then PDFRENDER_CHROME, then PUPPETEER_EXECUTABLE_PATH, then PATH', async () => {
    const dir = await tempDir();
    const [flag, ours, puppeteers] = await Promise.all(['flag', 'ours', 'puppeteers'].map((name) => executable(dir, name)));
    const onPath = await executable(dir, 'chromium');
    const env = { PATH: dir, PDFRENDER_CHROME: ours, PUPPETEER_EXECUTABLE_PATH: puppeteers };
    const options = { env, systemPaths: [] };
    expect(findBrowser({ ...options, chrome: flag })).toEqual({ executablePath: flag, source: '--chrome' });
    expect(findBrowser(options)).toEqual({ executablePath: ours, source: 'PDFRENDER_CHROME' });
    expect(findBrowser({ ...options, env: { ...env, PDFRENDER_CHROME: '' } })).toEqual({ executablePath: puppeteers, source: 'PUPPETEER_EXECUTABLE_PATH' });
    expect(findBrowser({ ...options, env: { PATH: dir } })).toEqual({ executablePath: onPath, source: 'PATH' });
  });

  it.each(['chromium', 'chromium-browser', 'google-chrome', 'chrome-headless-shell'])('finds %s on PATH', async (name) => {
    const env = await emptyEnv();
    const path = await executable(env.PATH!, name);
    expect(findBrowser({ env, systemPaths: [] })).toEqual({ executablePath: path, source: 'PATH' });
  });

  it('skips PATH entries that are not executable, then tries the system locations', async () => {
    const env = await emptyEnv();
    await executable(env.PATH!, 'chromium', 0o644);
    const system = await executable(await tempDir(), 'chrome');
    expect(findBrowser({ env, systemPaths: ['/nonexistent/chrome', system] })).toEqual({ executablePath: system, source: 'system' });
  });

  it('finds the browser that `pdfrender setup` downloaded last', async () => {
    const env = await emptyEnv();
    const downloaded = await executable(await tempDir(), 'chrome-headless-shell');
    await mkdir(dirname(browserCachePath(env)), { recursive: true });
    await writeFile(browserCachePath(env), `${downloaded}\n`);
    expect(findBrowser({ env, systemPaths: [] })).toEqual({ executablePath: downloaded, source: 'setup' });
  });

  it.each([
    ['--chrome', (path: string) => ({ chrome: path })],
    ['PDFRENDER_CHROME', (path: string) => ({ env: { PDFRENDER_CHROME: path } })],
    ['PUPPETEER_EXECUTABLE_PATH', (path: string) => ({ env: { PUPPETEER_EXECUTABLE_PATH: path } })],
  ])('rejects a %s path that does not exist or cannot run, without falling back', async (source, options) => {
    const notExecutable = await executable(await tempDir(), 'chrome', 0o644);
    for (const path of ['/nonexistent/chrome', notExecutable]) {
      const error = (() => {
        try {
          findBrowser({ ...options(path), systemPaths: ['/bin/sh'] });
        } catch (e) {
          return e;
        }
      })();
      expect(isPdfRenderError(error, 'BROWSER_NOT_FOUND')).toBe(true);
      expect((error as Error).message).toContain(`the browser given by ${source} (${path}) does not exist or is not executable`);
    }
  });

  it('returns null when there is none, and requireBrowser says how to get one', async () => {
    const env = await emptyEnv();
    expect(findBrowser({ env, systemPaths: [] })).toBeNull();
    expect(() => requireBrowser({ env, systemPaths: [] })).toThrow(/no Chromium or Chrome found; install one with `npx pdfrender setup`.*apt-get install chromium/);
  });
});
