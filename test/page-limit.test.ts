/**
 * --max-pages before the print (issue 31 §1), against real Chromium: a document taller than the
 * limit's pages fails before it is printed (by its height, or by a probe of the page past the limit),
 * for less CPU than printing the limit's pages of it (what the check after the print cost); one whose
 * breaks alone make it long still fails on the count of the printed PDF.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../src/engine/engine.js';
import { isPdfRenderError } from '../src/errors.js';
import { executablePath } from './support/browser.js';

let engine: Engine;

beforeAll(() => {
  engine = createEngine({ executablePath, concurrency: 1, maxPages: 100 });
});

afterAll(() => engine.close());

const words =
  'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. ';

/** A report of `count` paragraphs, about eight a page. */
const report = (count: number) => Array.from({ length: count }, (_, i) => `<p>${i} ${words.repeat(5)}</p>`).join('');

/** CPU milliseconds this process and every process under it used while `work` ran (per process, so one that ends meanwhile is not subtracted). */
async function treeCpu(work: () => Promise<unknown>): Promise<number> {
  const read = () => {
    const ticks = new Map<number, number>();
    const visit = (pid: number) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        ticks.set(pid, Number(fields[11]) + Number(fields[12]));
        for (const task of readdirSync(`/proc/${pid}/task`))
          for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, 'latin1').split(' '))
            if (child) visit(Number(child));
      } catch {
        // gone meanwhile
      }
    };
    visit(process.pid);
    return ticks;
  };
  const before = read();
  await work();
  let ticks = 0;
  for (const [pid, now] of read()) ticks += now - (before.get(pid) ?? 0);
  return ticks * 10;
}

const failure = (htmlContent: string) =>
  engine.render({ htmlContent }).then(
    () => expect.unreachable('rendered'),
    (error: unknown) => error as Error,
  );

describe('--max-pages before the print', () => {
  it('fails a document taller than the limit by a probe of page 101, found before printing it', async () => {
    const far = await failure(report(3200));
    expect(isPdfRenderError(far, 'RENDER_PDF_FAILED')).toBe(true);
    expect(far.message).toMatch(
      /^the document has more pages than the limit of 100 \(maxPages\): page 101 exists \(about \d{3} pages by its height\), found before printing it$/,
    );
    const near = await failure(report(1200));
    expect(near.message).toMatch(
      /^the document has more pages than the limit of 100 \(maxPages\): page 101 exists \(about 1\d\d pages by its height\), found before printing it$/,
    );
    // At the limit, it renders.
    expect((await engine.render({ htmlContent: report(790) })).pages).toBeLessThanOrEqual(100);
  }, 120_000);

  it('renders documents many times taller than the limit that Chromium shrinks onto fewer pages', async () => {
    // Each is far taller than 100 pages of Letter as laid out, and prints on fewer: Chromium scales a
    // page wider than the paper down to fit it (found by review: the height alone refused all three).
    const tall = '<p style="height: 300000px">tall</p>';
    for (const htmlContent of [
      `<style>@page { size: 8.5in 600in; }</style>${tall}`,
      `<style>@media print { html { zoom: 0.02; } }</style>${tall}<p style="height: 300000px">more</p>`,
      `<style>@page { size: 300in 300in; }</style>${tall}`,
    ]) {
      const { pages } = await engine.render({ htmlContent, tagged: false });
      expect(pages).toBeLessThanOrEqual(100);
    }
  }, 120_000);

  it('still fails, after printing, a document whose page breaks make it longer than its height says', async () => {
    const breaks = Array.from({ length: 150 }, (_, i) => `<p style="break-after: page">${i}</p>`).join('');
    expect((await failure(breaks)).message).toBe('the document has more pages than the limit of 100 (maxPages)');
  }, 60_000);

  it("costs a document four times the limit less CPU than printing the limit's pages of it, as the check after the print did", async () => {
    const refusing: number[] = [];
    const printing: number[] = [];
    const html = report(3200);
    // Alternated, medians of three: the machine is shared. With pageRanges 1-101 nothing is checked
    // before the print: Chromium lays the document out whole, prints 101 pages, and they are counted.
    for (let run = 0; run < 3; run += 1) {
      refusing.push(await treeCpu(() => failure(html)));
      printing.push(
        await treeCpu(async () => {
          const error = await engine
            .render({ htmlContent: html, pageRanges: '1-101' })
            .catch((e: unknown) => e as Error);
          expect((error as Error).message).toBe('the document has more pages than the limit of 100 (maxPages)');
        }),
      );
    }
    const median = (values: number[]) => values.sort((a, b) => a - b)[1]!;
    // Measured here: 660 against 980 ms (and 270 to 350 ms to render the 99 pages of the limit).
    expect(median(refusing) / median(printing)).toBeLessThan(0.8);
  }, 180_000);
});
