/**
 * A document that pushes all it can through the browser's reporting (issue 27 §3): console calls
 * and uncaught exceptions with 256 MB strings, from the page and from a worker. pdfrender must not
 * hear any of it (the Runtime domain stays off, unneeded-commands.ts), the browser must not spend
 * seconds logging it (engine-flags.ts), and the watchdog must see a browser busy with what is left
 * as busy, not hung: the shared browser is never killed, and another caller's renders, sent while the
 * flood runs, all succeed.
 */
import { performance } from 'node:perf_hooks';
import { afterAll, describe, expect, it } from 'vitest';
import { launchBrowser, type LaunchedBrowser } from '../src/engine/browser/launch.js';
import { renderRequestSchema } from '../src/request.js';
import { executablePath } from './support/browser.js';
import { readPdf } from './support/pdf.js';
import { watchedEngine } from './support/watched-engine.js';

// On a main without these defences, the flood left the browser's pings unanswered for 3 to 5 s at a time.
const { engine, warnings } = watchedEngine({ timeoutMs: 150_000 });
let launched: LaunchedBrowser | undefined;

afterAll(async () => {
  await engine.close();
  await launched?.close(true);
});

const render = async (htmlContent: string, waitForExpression?: string) =>
  engine.render(renderRequestSchema.parse({ htmlContent, waitForExpression }));

// 150 bytes or so each: the string is made in the page, never sent.
const big = "const s='x'.repeat(256*1024*1024);";
const flood = [
  `<script>${big}for(let i=0;i<4;i++)console.log(s)</script>`,
  `<script>${big}for(let i=0;i<2;i++)setTimeout(()=>{throw s})</script>`,
  // A worker's console is its own, beyond any script the page could be given first.
  `<script>new Worker(URL.createObjectURL(new Blob(["${big}console.log(s);console.error(s);postMessage(1)"]))).onmessage=()=>document.title='logged'</script>`,
  '<p>flood</p>',
].join('');

describe('a document flooding the console', () => {
  it('is never heard by pdfrender: no console call or exception crosses the DevTools pipe', async () => {
    launched = await launchBrowser(executablePath);
    const page = await launched.browser.newPage();
    const heard: string[] = [];
    page.on('console', (message) => heard.push(`console: ${message.text()}`));
    page.on('pageerror', (error) => heard.push(`pageerror: ${String(error)}`));
    page.on('workercreated', (worker) => heard.push(`worker: ${worker.url()}`));
    // The events would come on the page's session before its load event, which goto waits for.
    await page.goto(
      `data:text/html,<script>console.log('console-canary');setTimeout(()=>{throw new Error('exception-canary')})</script>`,
      { waitUntil: 'load' },
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(heard).toEqual([]);
  });

  it('takes the shared browser down for nobody: it is not killed, and another caller renders meanwhile', async () => {
    expect((await render('<p>warm</p>')).pages).toBe(1);
    const started = performance.now();
    let flooding = true;
    // Printed once the worker has logged: a page's load does not wait for its workers.
    const flooded = render(flood, "document.title === 'logged'").finally(() => (flooding = false));
    flooded.catch(() => undefined);
    // Another caller's one-paragraph documents, one every half second for as long as the flood runs.
    const others: Array<Promise<{ at: number; ms?: number; error?: string }>> = [];
    while (flooding) {
      const at = Math.round(performance.now() - started);
      others.push(
        render(`<p>other caller ${at}</p>`).then(
          async (result) => {
            expect((await readPdf(result.pdf)).pages[0]!.text).toContain(`other caller ${at}`);
            return { at, ms: Math.round(result.ms) };
          },
          (error: unknown) => ({ at, error: String(error) }),
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const result = await flooded;
    const answered = await Promise.all(others);
    console.log(`flood rendered in ${Math.round(result.ms)} ms; other caller's renders (sent at, took):`, answered);
    expect(warnings).toEqual([]);
    expect(answered.filter((answer) => answer.error)).toEqual([]);
    expect(answered.length).toBeGreaterThan(2);
    expect((await readPdf(result.pdf)).pages[0]!.text).toContain('flood');
  }, 170_000);
});
