/**
 * The preflight report delivered wherever the server hands a render's result out (issue 28 §2): the
 * render-sync JSON answer, the X-Pdfrender-Report header of the PDF answer (whole, or counted when
 * it does not fit), a failed render's 400, an async job's status and its webhook events. Real
 * Chromium, real HTTP, a real webhook receiver; every report read is parsed with the API's schemas.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../src/engine/engine.js';
import { emptyReport, type RenderReport } from '../src/engine/report/render-report.js';
import { renderReportSchema } from '../src/engine/report/report-schema.js';
import { PdfRenderError } from '../src/errors.js';
import {
  errorAnswer,
  jobAnswer,
  renderSyncAnswer,
  reportHeaderValue,
  truncatedReport,
  webhookEvents,
} from '../src/server/api/api-answers.js';
import { reportHeader } from '../src/server/routes/report-header.js';
import { executablePath } from './support/browser.js';
import { removeTempDirs } from './support/files.js';
import { readPdf } from './support/pdf.js';
import { receiver, waitForArrivals } from './support/receiver.js';
import { startServer, type TestServer } from './support/server.js';

let engine: Engine;
let server: TestServer;
/** The reports the server's renders made, as the engine returned them. */
const made: RenderReport[] = [];

// Chromium refuses port 1 (an unsafe port): the image fails to load (net::ERR_UNSAFE_PORT).
const brokenImage = 'http://127.0.0.1:1/missing.png';
const broken = `<h1>Broken image</h1><img src="${brokenImage}">`;

beforeAll(async () => {
  engine = createEngine({ executablePath, concurrency: 2, timeoutMs: 20_000 });
  // Loopback allowed, so the image is tried and fails rather than being blocked by the policy.
  const recording: Engine = {
    ...engine,
    concurrency: engine.concurrency,
    render: async (request, options) => {
      const result = await engine.render(request, options);
      made.push(result.report);
      return result;
    },
  };
  server = await startServer({ allowPrivateNetwork: true }, { engine: recording }, { realClock: true });
});

afterAll(async () => {
  await server?.close();
  await engine?.close();
  await removeTempDirs();
});

const renderSync = (target: TestServer, body: unknown, accept = 'application/json') =>
  fetch(`${target.url}/api/pdfs/render-sync`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: accept },
    body: JSON.stringify(body),
  });

/** The failed image as the report names it. */
const failedImage = { url: brokenImage, code: 'LOAD_FAILED', reason: expect.stringMatching(/^net::ERR_/) };

/**
 * The engine with a failOn rule's way of failing: it renders for real, then fails the render with
 * its report, as a failOn rule does (PdfRenderError with `.report`).
 */
function failingOnProblems(real: Engine): Engine {
  return {
    ...real,
    concurrency: real.concurrency,
    render: async (request, options) => {
      const result = await real.render(request, options);
      throw new PdfRenderError('RENDER_PDF_FAILED', 'failOn resourceErrors: the document has resource errors', {
        report: result.report,
      });
    },
  };
}

describe('render-sync', () => {
  it('answers the report in the JSON answer, and in X-Pdfrender-Report (ASCII JSON) beside the PDF', async () => {
    const json = await renderSync(server, { htmlContent: broken });
    expect(json.status).toBe(200);
    const answer = renderSyncAnswer.parse(await json.json());
    expect(answer.report.resources.failed).toEqual([failedImage]);
    expect(answer.report.resources.blocked).toEqual([]);
    // The JSON answer has it whole in its body: no header.
    expect(json.headers.get('x-pdfrender-report')).toBeNull();

    for (const [path, accept] of [
      ['/api/pdfs/render-sync', 'application/pdf'],
      ['/api/pdfs/render-sync.pdf', 'application/json'],
    ] as const) {
      const response = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: accept },
        body: JSON.stringify({ htmlContent: `${broken}<p>Ελληνικά</p>` }),
      });
      expect(response.headers.get('content-type')).toBe('application/pdf');
      expect((await readPdf(new Uint8Array(await response.arrayBuffer()))).pages[0]!.text).toContain('Ελληνικά');
      const header = response.headers.get('x-pdfrender-report')!;
      expect(header).toMatch(/^[\x20-\x7e]+$/);
      const report = renderReportSchema.parse(JSON.parse(header));
      expect(report.resources.failed).toEqual([failedImage]);
    }
  });

  it('escapes what is not printable ASCII in the header, so that JSON.parse gives it back as it was', () => {
    const report: RenderReport = {
      ...emptyReport(),
      missingGlyphs: [{ script: 'Private use', count: 2, characters: '\ue000😀', where: ['body'] }],
      scriptErrors: { count: 1, more: false, messages: [{ kind: 'console.error', message: 'Ωμέγα "quoted"\n' }] },
    };
    const header = reportHeader(report);
    expect(header).toMatch(/^[\x20-\x7e]+$/);
    expect(header).toContain('\\ue000\\ud83d\\ude00');
    expect(renderReportSchema.parse(JSON.parse(header))).toEqual(report);
  });

  it('sends the counts per kind and the timings, marked truncated, when the whole report does not fit in the header', async () => {
    // 40 images whose URLs alone make more than 4000 characters of JSON.
    const many = Array.from({ length: 40 }, (_, i) => `${brokenImage}?${'x'.repeat(100)}=${i}`);
    const htmlContent = many.map((url) => `<img src="${url}">`).join('');
    const pdf = await renderSync(server, { htmlContent }, 'application/pdf');
    expect(pdf.status).toBe(200);
    const header = pdf.headers.get('x-pdfrender-report')!;
    expect(header.length).toBeLessThanOrEqual(4000);
    const counted = truncatedReport.parse(JSON.parse(header));
    expect(counted).toMatchObject({ truncated: true, counts: { resourceErrors: 40, scriptErrors: 0, overflow: 0 } });
    expect(reportHeaderValue.safeParse(JSON.parse(header)).success).toBe(true);
    // The JSON answer has the whole report.
    const whole = renderSyncAnswer.parse(await (await renderSync(server, { htmlContent })).json());
    expect(whole.report.resources.failed.map((issue) => issue.url).sort()).toEqual([...many].sort());
  });

  it('answers 400 RENDER_PDF_FAILED with the report when a failOn rule failed the render, and without one otherwise', async () => {
    const strict = await startServer({ allowPrivateNetwork: true }, { engine: failingOnProblems(engine) });
    try {
      const failed = await renderSync(strict, { htmlContent: broken }, 'application/pdf');
      expect(failed.status).toBe(400);
      const answer = errorAnswer(['RENDER_PDF_FAILED']).parse(await failed.json());
      expect(answer).toMatchObject({ outcome: 'RENDER_PDF_FAILED', message: expect.stringContaining('failOn') });
      expect(renderReportSchema.parse(answer.report).resources.failed).toEqual([failedImage]);
    } finally {
      await strict.close();
    }
    // A render that failed otherwise (its url did not load) has no report to give.
    const unloaded = await renderSync(server, { url: 'http://127.0.0.1:1/' });
    expect(unloaded.status).toBe(400);
    expect(errorAnswer(['RENDER_PDF_FAILED']).parse(await unloaded.json()).report).toBeUndefined();
  });
});

describe('render-async', () => {
  /** Queue `htmlContent` on `target` and wait for its webhook event; answers the event and the job's status. */
  async function finished(target: TestServer, identifier: string, htmlContent: string) {
    const hook = await receiver();
    try {
      await target.deps.webhooks.add(hook.url, Date.now());
      const queued = await fetch(`${target.url}/api/pdfs/render-async`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ htmlContent, identifier }),
      });
      expect(queued.status).toBe(202);
      const { statusUrl } = (await queued.json()) as { statusUrl: string };
      const [arrival] = await waitForArrivals(hook, 1, 30_000);
      expect(arrival, 'the webhook event').toBeDefined();
      const status = jobAnswer.parse(await (await fetch(statusUrl)).json());
      return { event: JSON.parse(arrival!.body) as unknown, status };
    } finally {
      hook.close();
    }
  }

  it("gives the job's status and its PDF_RENDERED event the report, RenderPDF.io's id and url as they were", async () => {
    const { event, status } = await finished(server, 'with-report', broken);
    const rendered = webhookEvents.PDF_RENDERED.parse(event);
    expect(rendered.payload).toMatchObject({ id: 'with-report', url: status.fileUrl, jobId: status.jobId });
    expect(rendered.payload.report!.resources.failed).toEqual([failedImage]);
    expect(status.status).toBe('succeeded');
    // Kept as the render made it (timings and all), and the same in the status and the event.
    expect(status.report).toEqual(made.at(-1));
    expect(rendered.payload.report).toEqual(made.at(-1));
  });

  it('gives a job a failOn rule failed, and its RENDER_PDF_FAILED event, the report of the render it failed', async () => {
    const strict = await startServer(
      { allowPrivateNetwork: true, maxAttempts: 1 },
      { engine: failingOnProblems(engine) },
      { realClock: true },
    );
    try {
      const { event, status } = await finished(strict, 'failed-on', broken);
      const failed = webhookEvents.RENDER_PDF_FAILED.parse(event);
      expect(failed.payload).toMatchObject({ id: 'failed-on', errorCode: 'RENDER_PDF_FAILED' });
      expect(failed.payload.report!.resources.failed).toEqual([failedImage]);
      expect(status).toMatchObject({ status: 'failed', errorCode: 'RENDER_PDF_FAILED' });
      expect(status.report).toEqual(failed.payload.report);
    } finally {
      await strict.close();
    }
  });
});
