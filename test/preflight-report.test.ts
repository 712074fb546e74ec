/**
 * What the preflight report finds (issue 28 §2) and the failOn rules that turn it into failures
 * (§3), on real Chromium: a clean document reports nothing; a character no font has, a broken image,
 * a web font that fails, a thrown error and a console.error, and a table wider than the page each
 * appear in the report, and each failOn rule fails the render as RENDER_PDF_FAILED naming the rule
 * and its first offender, through the engine, the CLI (exit 1), render-sync (400) and render-async
 * (a RENDER_PDF_FAILED webhook).
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../src/engine/engine.js';
import { failOnProblems } from '../src/engine/report/fail-on.js';
import { emptyReport, reportOf, type RenderReport } from '../src/engine/report/render-report.js';
import { renderReportSchema } from '../src/engine/report/report-schema.js';
import { isPdfRenderError, type PdfRenderError } from '../src/errors.js';
import { parseRenderRequest } from '../src/request.js';
import { webhookEvents } from '../src/server/api/api-answers.js';
import { executablePath } from './support/browser.js';
import { pdfrender } from './support/cli.js';
import { removeTempDirs, tempDir } from './support/files.js';
import { readGlyphs } from './support/pdf.js';
import { receiver, waitForArrivals } from './support/receiver.js';
import { postJson, startServer } from './support/server.js';

let engine: Engine;

beforeAll(() => {
  engine = createEngine({ executablePath, concurrency: 1, timeoutMs: 20_000 });
});

afterAll(async () => {
  await engine?.close();
  await removeTempDirs();
});

const render = (fields: Record<string, unknown>) => engine.render(parseRenderRequest(fields));

// A private-use character: no font on any machine has it, so Chromium draws an empty box.
const box = '\ue000';
// "hello", which is a valid data: URL but no image.
const notAnImage = 'data:image/png;base64,aGVsbG8=';
const documents = {
  clean: '<h1>Invoice 42</h1><p>Ελληνικά, Кириллица, 日本語, हिन्दी, 😀</p><table><tr><td>1</td></tr></table>',
  missingGlyph: `<p>An icon: ${box} and text</p>`,
  brokenImage: `<p>Logo:</p><img id="logo" src="${notAnImage}">`,
  failedFont: `<style>@font-face { font-family: Brand; src: url(data:font/woff2;base64,AAAAAAAA) format('woff2') }
    p { font-family: Brand, sans-serif }</style><p>Branded</p>`,
  scriptError: `<p>Scripted</p><script>console.error('total is', NaN); Promise.reject(new Error('no rates'));
    throw new TypeError('items is undefined')</script>`,
  overflow: '<table id="items" style="width:1500px"><tr><td>wide</td></tr></table>',
};

/** The kinds of problem a report holds, by failOn's names. */
function kinds(report: RenderReport): string[] {
  return [
    report.missingGlyphs.length > 0 && 'missingGlyphs',
    report.resources.brokenImages.length + report.resources.failed.length + report.fonts.failed.length > 0 &&
      'resourceErrors',
    report.scriptErrors.count > 0 && 'scriptErrors',
    report.overflow.length > 0 && 'overflow',
  ].filter((kind): kind is string => Boolean(kind));
}

describe('the report', () => {
  it('reports nothing for a clean document in many scripts, and names the fonts it drew with', async () => {
    const { report, pdf } = await render({ htmlContent: documents.clean });
    expect(renderReportSchema.parse(report)).toEqual(report);
    expect(kinds(report)).toEqual([]);
    expect(report.resources.blocked).toEqual([]);
    // The fonts the PDF embeds: a CJK one and the colour emoji among them.
    expect(report.fonts.used).toEqual(expect.arrayContaining([expect.stringMatching(/CJK/), 'NotoColorEmoji']));
    // Checked from the PDF itself: no empty box drawn.
    expect((await readGlyphs(pdf)).reduce((sum, font) => sum + font.notdef, 0)).toBe(0);
    for (const step of ['loadMs', 'waitMs', 'printMs', 'reportMs'] as const)
      expect(report.timings[step]).toBeGreaterThanOrEqual(0);
  });

  it('reports a character no font could draw, by script and where it is, as the PDF draws it', async () => {
    const { report, pdf } = await render({
      htmlContent: documents.missingGlyph,
      // Private use, beyond what fonts on a test machine draw (Glyphicons, which Debian's prometheus
      // package brings, draws U+E001 onward).
      footerHtmlContent: `<span style="font-size:10px">Page &#xE900;</span>`,
    });
    expect(report.missingGlyphs).toEqual([
      { script: 'Private use', count: 2, characters: `${box}\ue900`, where: ['body', 'footer'] },
    ]);
    expect(kinds(report)).toEqual(['missingGlyphs']);
    // The PDF has the boxes the report names.
    expect((await readGlyphs(pdf)).reduce((sum, font) => sum + font.notdef, 0)).toBe(2);
  });

  it('reports on a document with JavaScript off (Chromium then refuses the Debugger): its script neither runs nor errs', async () => {
    const off = createEngine({ executablePath, concurrency: 1, javascript: false });
    try {
      const { report } = await off.render(
        parseRenderRequest({ htmlContent: documents.missingGlyph + documents.scriptError }),
      );
      expect(kinds(report)).toEqual(['missingGlyphs']);
    } finally {
      await off.close();
    }
  });

  it('reports an image that could not be shown, with its selector', async () => {
    const { report } = await render({ htmlContent: documents.brokenImage });
    expect(report.resources.brokenImages).toEqual([
      { url: notAnImage, selector: 'img#logo', reason: expect.stringContaining('could not be decoded') },
    ]);
    expect(kinds(report)).toEqual(['resourceErrors']);
  });

  it('reports a web font that failed to load', async () => {
    const { report } = await render({ htmlContent: documents.failedFont });
    expect(report.fonts.failed).toEqual([{ family: 'Brand', reason: expect.any(String) }]);
    expect(kinds(report)).toEqual(['resourceErrors']);
  });

  it("reports the document's uncaught exceptions, rejections and console.error calls, and never the next document's", async () => {
    const { report } = await render({ htmlContent: documents.scriptError });
    expect(report.scriptErrors.count).toBe(3);
    expect(report.scriptErrors.messages).toEqual(
      expect.arrayContaining([
        { kind: 'exception', message: 'Uncaught TypeError: items is undefined' },
        { kind: 'exception', message: 'Unhandled rejection: no rates' },
        { kind: 'console.error', message: 'total is NaN' },
      ]),
    );
    // The same page (one page in the pool) takes the next document: nothing of the last one's errors.
    const next = await render({ htmlContent: '<p>Next</p><script>document.title = "next"</script>' });
    expect(next.report.scriptErrors).toEqual({ count: 0, more: false, messages: [] });
  });

  it('counts every exception of a document that throws in a loop, keeping the first ten, and still renders it', async () => {
    const { report, pages } = await render({
      htmlContent: `<p>Loop</p><script>for (let n = 1; n <= 50; n++) setTimeout(() => { throw new Error('tick ' + n) })</script>`,
      waitDelay: 200,
    });
    expect(pages).toBe(1);
    expect(report.scriptErrors).toMatchObject({ count: 50, more: true });
    expect(report.scriptErrors.messages.map((message) => message.message)).toEqual(
      Array.from({ length: 10 }, (_, i) => `Uncaught Error: tick ${i + 1}`),
    );
    // A `debugger;` statement stops nothing: the document renders at once.
    const debugged = await render({ htmlContent: '<p>Debugger</p><script>debugger; document.title = "x"</script>' });
    expect(debugged.report.scriptErrors.count).toBe(0);
  });

  it('keeps a line of an exception of 20 MB, which never crosses the DevTools pipe, and counts the next', async () => {
    const { report, pages } = await render({
      htmlContent: `<p>Large</p><script>throw 'x'.repeat(20e6)</script><script>throw new Error('after')</script>`,
    });
    expect(pages).toBe(1);
    expect(report.scriptErrors).toEqual({
      count: 2,
      more: false,
      messages: [
        { kind: 'exception', message: `Uncaught ${'x'.repeat(291)}` },
        { kind: 'exception', message: 'Uncaught Error: after' },
      ],
    });
  });

  it('catches the errors of every document written into a reused window, from its first script on', async () => {
    // Documents that run no script reuse their window; the next one's first script throws at once.
    await render({ htmlContent: '<p>static one</p>' });
    await render({ htmlContent: '<p>static two</p>' });
    const { report } = await render({ htmlContent: '<script>throw new RangeError("first thing")</script>' });
    expect(report.scriptErrors.messages).toEqual([{ kind: 'exception', message: 'Uncaught RangeError: first thing' }]);
  });

  it('reports content wider than the printable width, by the outermost element that runs past the edge', async () => {
    const { report } = await render({ htmlContent: documents.overflow });
    // Letter paper less 0.39 in margins each side: 7.72 in, 741 CSS pixels.
    // Wider than 1.5 times that, past what Chromium shrinks a page to fit: cut off.
    expect(report.overflow).toEqual([{ selector: 'table#items', right: 1508, printableWidth: 741, cutOff: true }]);
    const shrunk = await render({ htmlContent: documents.overflow.replace('1500px', '1000px') });
    expect(shrunk.report.overflow).toEqual([
      { selector: 'table#items', right: 1008, printableWidth: 741, cutOff: false },
    ]);
    // The same table fits landscape paper with room for 1500 pixels (A3 landscape: 16.54 in).
    const wide = await render({
      htmlContent: documents.overflow,
      paperWidth: '11.69in',
      paperHeight: '16.54in',
      landscape: true,
    });
    expect(wide.report.overflow).toEqual([]);
  });
});

describe('failOn', () => {
  it.each([
    ['missingGlyphs', documents.missingGlyph, /failOn missingGlyphs.*Private use/],
    ['resourceErrors', documents.brokenImage, /failOn resourceErrors.*image data:image\/png/],
    ['scriptErrors', documents.scriptError, /failOn scriptErrors.*script errors/],
    ['overflow', documents.overflow, /failOn overflow.*table#items/],
  ])(
    '%s fails a document that has the problem, naming it, with the report; other rules let it render',
    async (rule, html, message) => {
      const error = await render({ htmlContent: html, failOn: [rule] }).catch((failure: unknown) => failure);
      expect(isPdfRenderError(error, 'RENDER_PDF_FAILED')).toBe(true);
      expect((error as Error).message).toMatch(message);
      expect(kinds(reportOf(error)!)).toContain(rule);
      const others = ['missingGlyphs', 'resourceErrors', 'scriptErrors', 'overflow'].filter((other) => other !== rule);
      expect((await render({ htmlContent: html, failOn: others })).pages).toBe(1);
    },
  );

  it('passes a clean document under every rule', async () => {
    const { pages } = await render({
      htmlContent: documents.clean,
      failOn: 'missing-glyphs,resource-errors,script-errors,overflow',
    });
    expect(pages).toBe(1);
  });

  it("takes the engine's default rules for a request that gives none, and a request's own rules (even none) over them", async () => {
    const strict = createEngine({
      executablePath,
      concurrency: 1,
      failOn: ['overflow'],
      settingNames: { failOn: '--fail-on' },
    });
    try {
      await expect(strict.render(parseRenderRequest({ htmlContent: documents.overflow }))).rejects.toThrow(
        /failOn overflow \(--fail-on\)/,
      );
      expect((await strict.render(parseRenderRequest({ htmlContent: documents.overflow, failOn: [] }))).pages).toBe(1);
    } finally {
      await strict.close();
    }
  });

  it('fails a rule whose kind could not be checked, rather than pass it unchecked', () => {
    const report: RenderReport = {
      ...emptyReport(),
      unchecked: [{ kind: 'missingGlyphs', reason: 'the PDF is larger than 32 MB, past what is read for this check' }],
    };
    expect(() => failOnProblems(report, ['overflow'], 'failOn')).not.toThrow();
    expect(() => failOnProblems(report, ['missingGlyphs'], 'failOn')).toThrow(
      /failOn missingGlyphs \(failOn\): missing glyphs not checked: the PDF is larger than 32 MB/,
    );
  });

  it('refuses an unknown rule, naming the field', () => {
    const error = (() => {
      try {
        return parseRenderRequest({ htmlContent: '<p>x</p>', failOn: ['overflow', 'typos'] });
      } catch (failure) {
        return failure;
      }
    })();
    expect(isPdfRenderError(error, 'VALIDATION_FAILED')).toBe(true);
    expect((error as PdfRenderError).fieldErrors).toEqual({ failOn: [expect.stringMatching(/^unknown rule "typos"/)] });
  });

  it('exits 1 for the document in the CLI, writing no PDF, and 0 without the rule', async () => {
    const dir = await tempDir();
    const input = join(dir, 'icon.html');
    await writeFile(input, documents.missingGlyph);
    const failed = await pdfrender([
      'render',
      input,
      '-o',
      join(dir, 'out.pdf'),
      '--fail-on',
      'missing-glyphs',
      '--json',
    ]);
    expect(failed.code).toBe(1);
    const summary = JSON.parse(failed.stdout.toString()) as {
      documents: Array<{ errorCode: string; error: string; report: RenderReport }>;
    };
    expect(summary.documents[0]).toMatchObject({
      errorCode: 'RENDER_PDF_FAILED',
      error: expect.stringMatching(/failOn missingGlyphs/),
    });
    expect(summary.documents[0]!.report.missingGlyphs[0]!.script).toBe('Private use');
    expect(existsSync(join(dir, 'out.pdf'))).toBe(false);
    const passed = await pdfrender(['render', input, '-o', join(dir, 'out.pdf')]);
    expect(passed.code).toBe(0);
    // One warning line for the kind, naming the character's script.
    expect(passed.stderr.match(/no font could draw/g)).toHaveLength(1);
  });

  it("answers 400 RENDER_PDF_FAILED on render-sync and sends a RENDER_PDF_FAILED webhook on render-async, each with the report; the server's --fail-on is the default", async () => {
    const hook = await receiver();
    // Its own engine, made from its settings as pdfrender serve makes it: --fail-on is the engine's default.
    const server = await startServer({ failOn: 'script-errors' }, undefined, { realClock: true });
    try {
      const sync = await fetch(`${server.url}/api/pdfs/render-sync`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ htmlContent: documents.scriptError }),
      });
      expect(sync.status).toBe(400);
      const body = (await sync.json()) as {
        errorCode?: string;
        error?: string;
        message?: string;
        report?: RenderReport;
      };
      expect(JSON.stringify(body)).toMatch(/failOn scriptErrors \(--fail-on\)/);
      expect(body.report?.scriptErrors.count).toBe(3);
      // The request's own rules replace the server's.
      const own = await fetch(`${server.url}/api/pdfs/render-sync`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ htmlContent: documents.scriptError, failOn: [] }),
      });
      expect(own.status).toBe(200);

      await postJson(server, '/api/webhooks', { url: hook.url });
      const queued = await postJson(server, '/api/pdfs/render-async', {
        htmlContent: documents.overflow,
        identifier: 'wide-1',
        failOn: ['overflow'],
      });
      expect(queued.status).toBe(202);
      const [arrival] = await waitForArrivals(hook, 1, 20_000);
      const event = webhookEvents.RENDER_PDF_FAILED.parse(JSON.parse(arrival!.body));
      expect(event).toMatchObject({
        type: 'RENDER_PDF_FAILED',
        payload: { id: 'wide-1', errorCode: 'RENDER_PDF_FAILED', error: expect.stringMatching(/failOn overflow/) },
      });
      expect(event.payload.report?.overflow[0]?.selector).toBe('table#items');
    } finally {
      hook.close();
      await server.close();
    }
  });
});
