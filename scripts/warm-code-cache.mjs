/**
 * What the build runs before it writes the bundle's code cache (bundle.mjs): two small documents
 * rendered with the bundled CLI the way users' are (tagged, with a header and footer; untagged), so
 * that the cache holds every function a render calls and a cold `pdfrender render` compiles next to
 * none of them (a letter: 0.46 -> 0.43 s of CPU against a cache of the render command's modules).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';

/** The kinds of content most documents have. */
const documentHtml = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Warm-up</title>
<style>body { font-family: sans-serif; } table { border-collapse: collapse; } td { border: 1px solid #999; }</style>
</head><body><h1>Heading</h1><p>A paragraph with <a href="https://example.com/">a link</a> and <b>bold</b> text.</p>
<ul><li>One</li><li>Two</li></ul><table><tr><th>Item</th><th>Price</th></tr><tr><td>A</td><td>1.00</td></tr></table>
<img alt="dot" src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="></body></html>`;
const templateHtml = '<div style="font-size: 9px; width: 100%">Page <span class="pageNumber"></span></div>';

/**
 * Render the documents with `cli` (the bundle's exports), finding the browser as `env` says; resolves
 * to undefined once both rendered, else to why not (the CLI's first line of error: no browser, say).
 */
export async function warmCodeCache(cli, env) {
  let stderr = '';
  const io = {
    stdout: new Writable({ write: (_chunk, _encoding, done) => done() }),
    stderr: new Writable({ write: (chunk, _encoding, done) => done(void (stderr += chunk)) }),
    stdoutIsTTY: false,
    stderrIsTTY: false,
    // Only what finds a browser: a developer's PDFRENDER_* settings must not shape the cache.
    env: Object.fromEntries(
      ['PATH', 'HOME', 'XDG_CACHE_HOME', 'PDFRENDER_CHROME', 'PUPPETEER_EXECUTABLE_PATH']
        .filter((name) => env[name] !== undefined)
        .map((name) => [name, env[name]]),
    ),
    cwd: process.cwd(),
    signal: new AbortController().signal,
  };
  const folder = mkdtempSync(join(tmpdir(), 'pdfrender-warm-'));
  try {
    const file = (name, text) => (writeFileSync(join(folder, name), text), join(folder, name));
    const [document, template] = [file('document.html', documentHtml), file('template.html', templateHtml)];
    const runs = [
      ['render', document, '-o', join(folder, 'tagged.pdf'), '--header', template, '--footer', template],
      ['render', document, '-o', join(folder, 'untagged.pdf'), '--no-tagged', '--no-outline'],
    ];
    for (const args of runs) {
      if ((await cli.runCli(args, io)) !== 0) return stderr.trim().split('\n')[0] || `\`${args[0]}\` failed`;
    }
    return undefined;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
