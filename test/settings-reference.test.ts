/**
 * docs/serve-settings.md's table of `pdfrender serve` settings is written by hand; this keeps it true
 * to the settings' declarations (serveSettings in src/server/config.ts): every setting has a row
 * naming its flag and its environment variable, and every row names a setting that exists. README.md
 * shows a few of them: each of its rows must be true too.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { flagName } from '../src/render-settings.js';
import { serveSettings } from '../src/server/config.js';

/** The rows of a page's serve table: `--flag ...` | `PDFRENDER_X` (a list names the variable first). */
function documentedSettings(page = 'docs/serve-settings.md'): Map<string, string> {
  const readme = readFileSync(resolve(import.meta.dirname, '..', page), 'utf8');
  const rows = new Map<string, string>();
  for (const match of readme.matchAll(/^\| `(--[a-z0-9-]+)[^`]*`[^|]*\| `(PDFRENDER_[A-Z0-9_]+)`/gm))
    rows.set(match[1]!, match[2]!);
  return rows;
}

const declared = new Map(Object.values(serveSettings).map((setting) => [flagName(setting.flag), setting.env]));

describe('the tables of serve settings', () => {
  it('docs/serve-settings.md has one row for every setting, with its environment variable, and none for a setting that does not exist', () => {
    const documented = documentedSettings();
    expect([...declared].filter(([flag, env]) => documented.get(flag) !== env)).toEqual([]);
    expect([...documented.keys()].filter((flag) => !declared.has(flag))).toEqual([]);
  });

  it("README.md's few rows each name a setting with its environment variable", () => {
    const shown = documentedSettings('README.md');
    expect(shown.size).toBeGreaterThan(0);
    expect([...shown].filter(([flag, env]) => declared.get(flag) !== env)).toEqual([]);
  });
});
