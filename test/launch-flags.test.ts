/**
 * pdfrender starts Chromium itself (so the CLI can start it before its modules load), with the flags
 * puppeteer's launch used to give it: every one of puppeteer's defaults but the two that tag and
 * outline every PDF. A puppeteer upgrade that adds a default shows here.
 */
import puppeteer from 'puppeteer-core';
import { describe, expect, it } from 'vitest';
import { browserArgs, chromiumFlags } from '../src/engine/browser/browser-process.js';

/** Switch name to value ('' for a bare switch), features split into sets; later switches win, as in Chromium. */
function switches(args: readonly string[]): Map<string, string | Set<string>> {
  const found = new Map<string, string | Set<string>>();
  for (const arg of args.filter((a) => a.startsWith('--'))) {
    const [name, value = ''] = arg.split(/=(.*)/s);
    found.set(name!, /^--(enable|disable)-features$/.test(name!) ? new Set(value.split(',')) : value);
  }
  return found;
}

describe('the flags Chromium starts with', () => {
  it("hold every one of puppeteer's launch defaults except --export-tagged-pdf and --generate-pdf-document-outline", () => {
    const ours = switches(browserArgs('/tmp/profile', [], {}));
    const defaults = switches(puppeteer.defaultArgs({ headless: true, userDataDir: '/tmp/profile' }));
    expect(defaults.has('--export-tagged-pdf')).toBe(true);
    for (const [name, value] of defaults) {
      if (name === '--export-tagged-pdf' || name === '--generate-pdf-document-outline') {
        expect(ours.has(name)).toBe(false);
      } else if (value instanceof Set) {
        // Features: ours add to puppeteer's, never drop one.
        expect(
          [...value].filter((feature) => !(ours.get(name) as Set<string>).has(feature)),
          name,
        ).toEqual([]);
      } else {
        expect(ours.get(name), name).toBe(value);
      }
    }
  });

  it('end with the extra flags and the DevTools pipe, with no URL (no tab); --no-sandbox only when the sandbox is off', () => {
    const args = browserArgs('/tmp/profile', ['--proxy-server=http://127.0.0.1:1'], {});
    expect(args.slice(-2)).toEqual(['--proxy-server=http://127.0.0.1:1', '--remote-debugging-pipe']);
    expect(args.filter((arg) => !arg.startsWith('--'))).toEqual([]);
    expect(args).not.toContain('--no-sandbox');
    expect(browserArgs('/tmp/profile', [], { noSandbox: 'no user namespaces' })).toContain('--no-sandbox');
    expect(chromiumFlags.filter((flag) => flag.startsWith('--disable-features='))).toHaveLength(1);
  });

  it('join the features an extra flag enables to the common ones, in one --enable-features (Chromium takes the last)', () => {
    const args = browserArgs('/tmp/profile', ['--enable-features=NetworkServiceInProcess2', '--log-level=3'], {});
    expect(args.filter((arg) => arg.startsWith('--enable-features='))).toEqual([
      '--enable-features=PdfOopif,NetworkServiceInProcess2',
    ]);
    expect(args.slice(-2)).toEqual(['--log-level=3', '--remote-debugging-pipe']);
  });
});
