/** Browser discovery: precedence, mistakes in named paths, PATH lookup, system locations and the setup cache. */
import { accessSync, constants } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  browserCachePath,
  findBrowser,
  requireBrowser,
  systemBrowserPaths,
  type FindBrowserOptions,
} from '../src/engine/browser/find-browser.js';
import { PdfRenderError } from '../src/errors.js';
import { removeTempDirs, tempDir } from './support/files.js';

// Every test builds its own env object and temp folders; process.env is never read or changed.
afterEach(removeTempDirs);

/** A file at dir/name with the given mode (executable by default). */
async function executable(dir: string, name: string, mode = 0o755): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, '#!/bin/sh\n');
  await chmod(path, mode);
  return path;
}

/** An environment in which nothing is found unless the test puts it there (empty PATH folder, empty cache). */
async function emptyEnv(): Promise<NodeJS.ProcessEnv> {
  const dir = await tempDir();
  return { PATH: dir, XDG_CACHE_HOME: dir };
}

/** The error findBrowser throws (fails the test if it returns). */
function thrownBy(options: FindBrowserOptions): PdfRenderError {
  try {
    const found = findBrowser(options);
    throw new Error(`expected an error, found ${JSON.stringify(found)}`);
  } catch (error) {
    expect(error).toBeInstanceOf(PdfRenderError);
    return error as PdfRenderError;
  }
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

describe('findBrowser: precedence', () => {
  /** Four working browsers, one for each way of naming one, each taken away in turn. */
  async function fourBrowsers() {
    const dir = await tempDir();
    const pathDir = await tempDir();
    const [flag, ours, puppeteers] = await Promise.all(
      ['flag', 'ours', 'puppeteers'].map((name) => executable(dir, name)),
    );
    const onPath = await executable(pathDir, 'chromium');
    const env = { PATH: pathDir, XDG_CACHE_HOME: dir, PDFRENDER_CHROME: ours, PUPPETEER_EXECUTABLE_PATH: puppeteers };
    return { flag: flag!, ours: ours!, puppeteers: puppeteers!, onPath, env };
  }

  it('takes --chrome over everything else', async () => {
    const { flag, env } = await fourBrowsers();
    expect(findBrowser({ env, systemPaths: [], chrome: flag })).toEqual({ executablePath: flag, source: '--chrome' });
  });

  it('takes PDFRENDER_CHROME over PUPPETEER_EXECUTABLE_PATH and PATH', async () => {
    const { ours, env } = await fourBrowsers();
    expect(findBrowser({ env, systemPaths: [] })).toEqual({ executablePath: ours, source: 'PDFRENDER_CHROME' });
  });

  it('takes PUPPETEER_EXECUTABLE_PATH over PATH', async () => {
    const { puppeteers, env } = await fourBrowsers();
    expect(findBrowser({ env: { ...env, PDFRENDER_CHROME: undefined }, systemPaths: [] })).toEqual({
      executablePath: puppeteers,
      source: 'PUPPETEER_EXECUTABLE_PATH',
    });
  });

  it('looks on PATH when nothing names a browser', async () => {
    const { onPath, env } = await fourBrowsers();
    const { PATH, XDG_CACHE_HOME } = env;
    expect(findBrowser({ env: { PATH, XDG_CACHE_HOME }, systemPaths: [] })).toEqual({
      executablePath: onPath,
      source: 'PATH',
    });
  });

  it('treats empty variables and an empty --chrome as not set', async () => {
    const { onPath, env } = await fourBrowsers();
    const blank = { ...env, PDFRENDER_CHROME: '', PUPPETEER_EXECUTABLE_PATH: '' };
    expect(findBrowser({ env: blank, chrome: '', systemPaths: [] })).toEqual({
      executablePath: onPath,
      source: 'PATH',
    });
  });

  it('takes PATH over the system locations, and those over the setup cache', async () => {
    const env = await emptyEnv();
    const onPath = await executable(env.PATH!, 'chromium');
    const system = await executable(await tempDir(), 'chrome');
    const downloaded = await executable(await tempDir(), 'chrome-headless-shell');
    await mkdir(dirname(browserCachePath(env)), { recursive: true });
    await writeFile(browserCachePath(env), downloaded);
    expect(findBrowser({ env, systemPaths: [system] })).toEqual({ executablePath: onPath, source: 'PATH' });
    expect(findBrowser({ env: { ...env, PATH: '' }, systemPaths: [system] })).toEqual({
      executablePath: system,
      source: 'system',
    });
    expect(findBrowser({ env: { ...env, PATH: '' }, systemPaths: [] })).toEqual({
      executablePath: downloaded,
      source: 'setup',
    });
  });
});

describe('findBrowser: a named path that does not work', () => {
  const sources: Array<[string, (path: string) => FindBrowserOptions]> = [
    ['--chrome', (path) => ({ chrome: path })],
    ['PDFRENDER_CHROME', (path) => ({ env: { PDFRENDER_CHROME: path } })],
    ['PUPPETEER_EXECUTABLE_PATH', (path) => ({ env: { PUPPETEER_EXECUTABLE_PATH: path } })],
  ];

  it.each(sources)('rejects a %s path that does not exist, naming the source and the path', (source, options) => {
    const error = thrownBy({ ...options('/nonexistent/chrome'), systemPaths: ['/bin/sh'] });
    expect(error.code).toBe('BROWSER_NOT_FOUND');
    expect(error.message).toContain(
      `the browser given by ${source} (/nonexistent/chrome) does not exist or is not executable`,
    );
    expect(error.message).toContain('npx pdfrender setup');
  });

  it.each(sources)('rejects a %s path that is not executable', async (source, options) => {
    const notExecutable = await executable(await tempDir(), 'chrome', 0o644);
    const error = thrownBy({ ...options(notExecutable), systemPaths: ['/bin/sh'] });
    expect(error.code).toBe('BROWSER_NOT_FOUND');
    expect(error.message).toContain(`the browser given by ${source} (${notExecutable})`);
  });

  it('does not fall back to a lower source, even a working one', async () => {
    const env = await emptyEnv();
    const working = await executable(env.PATH!, 'chromium');
    const error = thrownBy({
      chrome: '/nonexistent/chrome',
      env: { ...env, PDFRENDER_CHROME: working },
      systemPaths: [working],
    });
    expect(error.message).toContain('--chrome (/nonexistent/chrome)');
    expect(
      thrownBy({ env: { ...env, PDFRENDER_CHROME: '/nonexistent/a', PUPPETEER_EXECUTABLE_PATH: working } }).message,
    ).toContain('PDFRENDER_CHROME (/nonexistent/a)');
  });

  it('never looks at a lower source once a higher one works', async () => {
    const dir = await tempDir();
    const flag = await executable(dir, 'flag');
    expect(findBrowser({ chrome: flag, env: { PDFRENDER_CHROME: '/nonexistent/chrome' }, systemPaths: [] })).toEqual({
      executablePath: flag,
      source: '--chrome',
    });
  });

  it('rejects a directory given as --chrome', async () => {
    const dir = await tempDir();
    expect(thrownBy({ chrome: dir, env: {}, systemPaths: [] }).code).toBe('BROWSER_NOT_FOUND');
  });
});

describe('findBrowser: PATH lookup', () => {
  it.each([
    'chromium-headless-shell',
    'chrome-headless-shell',
    'chromium',
    'chromium-browser',
    'google-chrome',
    'google-chrome-stable',
    'chrome',
  ])('finds %s on PATH', async (name) => {
    const env = await emptyEnv();
    const path = await executable(env.PATH!, name);
    expect(findBrowser({ env, systemPaths: [] })).toEqual({ executablePath: path, source: 'PATH' });
  });

  it('prefers the headless shell to chromium in the same folder (it starts in half the time)', async () => {
    const env = await emptyEnv();
    await executable(env.PATH!, 'chromium');
    const shell = await executable(env.PATH!, 'chromium-headless-shell');
    expect(findBrowser({ env, systemPaths: [] })!.executablePath).toBe(shell);
  });

  it('prefers chromium to google-chrome in the same folder', async () => {
    const env = await emptyEnv();
    await executable(env.PATH!, 'google-chrome');
    const chromium = await executable(env.PATH!, 'chromium');
    expect(findBrowser({ env, systemPaths: [] })!.executablePath).toBe(chromium);
  });

  it('searches PATH folders in order, like a shell, before preferring one name to another', async () => {
    const env = await emptyEnv();
    const first = await tempDir();
    const chrome = await executable(first, 'google-chrome');
    await executable(env.PATH!, 'chromium');
    expect(
      findBrowser({ env: { ...env, PATH: [first, env.PATH].join(delimiter) }, systemPaths: [] })!.executablePath,
    ).toBe(chrome);
  });

  it('skips empty and missing PATH entries', async () => {
    const env = await emptyEnv();
    const chromium = await executable(env.PATH!, 'chromium');
    const PATH = ['', '/nonexistent/bin', '', env.PATH].join(delimiter);
    expect(findBrowser({ env: { ...env, PATH }, systemPaths: [] })).toEqual({
      executablePath: chromium,
      source: 'PATH',
    });
  });

  it('skips PATH entries that are not executable, then tries the system locations', async () => {
    const env = await emptyEnv();
    await executable(env.PATH!, 'chromium', 0o644);
    const system = await executable(await tempDir(), 'chrome');
    expect(findBrowser({ env, systemPaths: ['/nonexistent/chrome', system] })).toEqual({
      executablePath: system,
      source: 'system',
    });
  });

  it('ignores files on PATH with other names', async () => {
    const env = await emptyEnv();
    await executable(env.PATH!, 'chromium.sh');
    await executable(env.PATH!, 'firefox');
    expect(findBrowser({ env, systemPaths: [] })).toBeNull();
  });

  it('skips a directory named chromium on PATH', async () => {
    const env = await emptyEnv();
    await mkdir(join(env.PATH!, 'chromium'));
    expect(findBrowser({ env, systemPaths: [] })).toBeNull();
  });
});

describe('findBrowser: system locations and the setup cache', () => {
  it('tries the built-in system locations when none are given', async () => {
    // This machine has /usr/bin/chromium; elsewhere the expectation adapts to what exists.
    const expected = systemBrowserPaths.find(isExecutable);
    const found = findBrowser({ env: await emptyEnv() });
    expect(found).toEqual(expected ? { executablePath: expected, source: 'system' } : null);
  });

  it('finds the browser that `pdfrender setup` downloaded last', async () => {
    const env = await emptyEnv();
    const downloaded = await executable(await tempDir(), 'chrome-headless-shell');
    await mkdir(dirname(browserCachePath(env)), { recursive: true });
    await writeFile(browserCachePath(env), `${downloaded}\n`);
    expect(findBrowser({ env, systemPaths: [] })).toEqual({ executablePath: downloaded, source: 'setup' });
  });

  it.each([
    ['a path that no longer exists', '/nonexistent/chrome-headless-shell\n'],
    ['an empty file', ''],
    ['only whitespace', ' \n'],
  ])('ignores a setup cache holding %s', async (_, contents) => {
    const env = await emptyEnv();
    await mkdir(dirname(browserCachePath(env)), { recursive: true });
    await writeFile(browserCachePath(env), contents);
    expect(findBrowser({ env, systemPaths: [] })).toBeNull();
  });

  it('returns null when there is no browser anywhere', async () => {
    expect(findBrowser({ env: await emptyEnv(), systemPaths: [] })).toBeNull();
    expect(findBrowser({ env: {}, systemPaths: ['/nonexistent/chrome'] })).toBeNull();
  });
});

describe('browserCachePath', () => {
  it('lives under XDG_CACHE_HOME', () => {
    expect(browserCachePath({ XDG_CACHE_HOME: '/x/cache' })).toBe(join('/x/cache', 'pdfrender', 'browser-path'));
  });

  it('falls back to ~/.cache when XDG_CACHE_HOME is unset or empty', () => {
    const fallback = join(homedir(), '.cache', 'pdfrender', 'browser-path');
    expect(browserCachePath({})).toBe(fallback);
    expect(browserCachePath({ XDG_CACHE_HOME: '' })).toBe(fallback);
  });
});

describe('requireBrowser', () => {
  it('returns what findBrowser finds', async () => {
    const env = await emptyEnv();
    const chromium = await executable(env.PATH!, 'chromium');
    expect(requireBrowser({ env, systemPaths: [] })).toEqual({ executablePath: chromium, source: 'PATH' });
  });

  it('throws BROWSER_NOT_FOUND with the fix in its message when there is none', async () => {
    const env = await emptyEnv();
    let thrown: unknown;
    try {
      requireBrowser({ env, systemPaths: [] });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(PdfRenderError);
    expect((thrown as PdfRenderError).code).toBe('BROWSER_NOT_FOUND');
    expect((thrown as Error).message).toMatch(
      /^no Chromium or Chrome found; install one with `npx pdfrender setup`.*apt-get install chromium.*--chrome or PDFRENDER_CHROME/,
    );
  });

  it('passes on the error for a named path that does not work', () => {
    expect(() => requireBrowser({ chrome: '/nonexistent/chrome', env: {}, systemPaths: [] })).toThrow(
      'the browser given by --chrome (/nonexistent/chrome)',
    );
  });
});
