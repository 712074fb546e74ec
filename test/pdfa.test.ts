/**
 * PDF/A-2b and PDF/A-3b (issue 30 §3): fixtures/invoice and fixtures/report rendered from the CLI,
 * render-sync and render-async, read back by qpdf (--check clean; the output intent and its ICC
 * profile, the document ID, /Metadata on the catalog, the Info dictionary) and poppler (pdfinfo
 * -meta: the XMP's PDF/A identification and its facts, which must match the Info dictionary's to
 * the second). And the other side: a PDF that breaks a rule pdfrender cannot mend fails the render
 * naming the rule; one it can mend is mended.
 */
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { PDFDocument, PDFName, StandardFonts } from '@cantoo/pdf-lib';
import { DOMParser } from '@xmldom/xmldom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { xmpPacket } from '../src/engine/document/xmp.js';
import { archivePdf } from '../src/engine/document/archive-finish.js';
import { isPdfRenderError } from '../src/errors.js';
import { pdfrender } from './support/cli.js';
import { inProcessCli } from './support/cli-in-process.js';
import { removeTempDirs, tempDir } from './support/files.js';
import { readPdf } from './support/pdf.js';
import { detachAll, pdfinfoMeta, qpdfCheck, qpdfObjects } from './support/pdf-tools.js';
import { renderAsyncPdf } from './support/async-pdf.js';
import { postJson, startServer, type TestServer } from './support/server.js';

const fixtures = resolve(import.meta.dirname, '../fixtures');
let server: TestServer;
const cli = inProcessCli();

beforeAll(async () => {
  server = await startServer({});
});

afterAll(async () => {
  await server.close();
  await cli.close();
  await removeTempDirs();
});

const ns = {
  pdfaid: 'http://www.aiim.org/pdfa/ns/id/',
  dc: 'http://purl.org/dc/elements/1.1/',
  pdf: 'http://ns.adobe.com/pdf/1.3/',
  xmp: 'http://ns.adobe.com/xap/1.0/',
  xmpMM: 'http://ns.adobe.com/xap/1.0/mm/',
};

/** The XMP as poppler reads it, by namespace and property: a list's (rdf:Alt, Seq, Bag) first item, or the text. */
function xmpOf(pdf: Uint8Array) {
  const document = new DOMParser().parseFromString(pdfinfoMeta(pdf), 'text/xml');
  const rdf = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
  return (namespace: string, local: string) =>
    Array.from(document.getElementsByTagNameNS(namespace, local)).map(
      (node) => (node.getElementsByTagNameNS(rdf, 'li')[0] ?? node).textContent,
    );
}

/** D:20261126203304Z (or with +hh'mm') as an instant. */
const pdfDate = (value: string) => {
  const [, y, mo, d, h, mi, s, zone, zh, zm] = /^D:(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(Z|[+-])?(\d\d)?'?(\d\d)?/.exec(
    value,
  )!;
  const offset = zone && zone !== 'Z' ? (zone === '-' ? -1 : 1) * (Number(zh) * 60 + Number(zm ?? 0)) : 0;
  return Date.UTC(+y!, +mo! - 1, +d!, +h!, +mi!, +s!) - offset * 60_000;
};

/** Everything PDF/A asks of the file at `part`, read by qpdf and poppler. */
function expectPdfa(pdf: Uint8Array, part: 2 | 3) {
  const check = qpdfCheck(pdf);
  expect(check.status, check.output).toBe(0);
  const { trailer, catalog, info, dict, resolve: follow } = qpdfObjects(pdf);
  // A document ID of two 16-byte halves, read as written (qpdf's JSON shows a string by its bytes:
  // "u:" text when 16 random bytes happen to read as text, which one file in a few dozen does).
  expect(trailer['/ID'] as string[]).toHaveLength(2);
  const written = [
    ...Buffer.from(pdf)
      .toString('latin1')
      .matchAll(/\/ID\s*\[\s*<([0-9a-fA-F]*)>\s*<([0-9a-fA-F]*)>\s*\]/g),
  ];
  for (const half of written.at(-1)!.slice(1)) expect(half).toMatch(/^[0-9a-fA-F]{32}$/);
  // The sRGB output intent with its ICC profile.
  const [intent, ...more] = follow(catalog['/OutputIntents']) as Record<string, string>[];
  expect(more).toEqual([]);
  expect(intent!['/S']).toBe('/GTS_PDFA1');
  expect(intent!['/OutputConditionIdentifier']).toBe('u:sRGB IEC61966-2.1');
  expect(dict(intent!['/DestOutputProfile'])['/N']).toBe(3);
  // The XMP on the catalog, unfiltered.
  const metadata = dict(catalog['/Metadata']);
  expect([metadata['/Type'], metadata['/Subtype'], metadata['/Filter']]).toEqual(['/Metadata', '/XML', undefined]);
  const xmp = xmpOf(pdf);
  expect(xmp(ns.pdfaid, 'part')).toEqual([String(part)]);
  expect(xmp(ns.pdfaid, 'conformance')).toEqual(['B']);
  // In sync with the Info dictionary.
  const text = (value: unknown) => String(value).replace(/^u:/, '');
  expect(xmp(ns.pdf, 'Producer')).toEqual([text(info['/Producer'])]);
  expect(xmp(ns.xmp, 'CreatorTool')).toEqual([text(info['/Creator'])]);
  if (info['/Title']) expect(xmp(ns.dc, 'title')[0]).toContain(text(info['/Title']));
  expect(Date.parse(xmp(ns.xmp, 'CreateDate')[0]!)).toBe(pdfDate(text(info['/CreationDate'])));
  expect(Date.parse(xmp(ns.xmp, 'ModifyDate')[0]!)).toBe(pdfDate(text(info['/ModDate'])));
  expect(xmp(ns.xmpMM, 'DocumentID')[0]).toMatch(/^uuid:[0-9a-f-]{36}$/);
  return { catalog, info, xmp, dict };
}

/** The ICC profile of the output intent, decoded by qpdf. */
async function outputProfile(pdf: Uint8Array, folder: string): Promise<Buffer> {
  const { catalog, resolve: follow } = qpdfObjects(pdf);
  const [intent] = follow(catalog['/OutputIntents']) as Record<string, string>[];
  const file = join(folder, 'profile.pdf');
  await writeFile(file, pdf);
  const object = intent!['/DestOutputProfile']!.replace(/ 0 R$/, '');
  return execFileSync('qpdf', [`--show-object=${object}`, '--filtered-stream-data', file]);
}

const invoiceFiles = async () => ({
  htmlContent: await readFile(join(fixtures, 'invoice/invoice.html'), 'utf8'),
  headerHtmlContent: await readFile(join(fixtures, 'invoice/header.html'), 'utf8'),
  footerHtmlContent: await readFile(join(fixtures, 'invoice/footer.html'), 'utf8'),
});
const cii = Buffer.from(
  '<?xml version="1.0" encoding="UTF-8"?>\n<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"/>\n',
);

describe('PDF/A', () => {
  it('the CLI: --pdfa PDF/A-3b with --attach on fixtures/invoice', async () => {
    const folder = await tempDir();
    await writeFile(join(folder, 'factur-x.xml'), cii);
    const run = await cli.run(
      [
        'render',
        join(fixtures, 'invoice/invoice.html'),
        '--header',
        join(fixtures, 'invoice/header.html'),
        '--footer',
        join(fixtures, 'invoice/footer.html'),
        '--print-background',
        '--metadata',
        '{"title": "Invoice <42> & co", "author": "ACME"}',
        '--pdfa',
        'PDF/A-3b',
        '--attach',
        'factur-x.xml;relationship=Alternative',
        '-o',
        'invoice.pdf',
      ],
      { cwd: folder },
    );
    expect(run.code, run.stderr).toBe(0);
    const pdf = new Uint8Array(await readFile(join(folder, 'invoice.pdf')));
    const { xmp, catalog, dict } = expectPdfa(pdf, 3);
    expect(xmp(ns.dc, 'creator')).toEqual(['ACME']);
    expect(xmp(ns.dc, 'title')[0]).toBe('Invoice <42> & co');
    expect(detachAll(pdf).files.get('factur-x.xml')!.equals(cii)).toBe(true);
    expect((catalog['/AF'] as string[]).map((ref) => dict(ref)['/AFRelationship'])).toEqual(['/Alternative']);
    // The profile is the one pdfrender builds: an ICC display profile, 'acsp' at byte 36.
    const profile = await outputProfile(pdf, folder);
    expect(profile.toString('latin1', 36, 40)).toBe('acsp');
    expect(profile.toString('latin1', 12, 24)).toBe('mntrRGB XYZ ');
    // Bad levels and PDF/A-2b with an attachment are refused by flag.
    const level = await cli.run(
      ['render', join(fixtures, 'invoice/invoice.html'), '--pdfa', 'PDF/A-1b', '-o', 'x.pdf'],
      {
        cwd: folder,
      },
    );
    expect(level.code).toBe(2);
    expect(level.stderr).toContain('--pdfa: must be "PDF/A-2b" or "PDF/A-3b" (got "PDF/A-1b")');
    const both = await cli.run(
      [
        'render',
        join(fixtures, 'invoice/invoice.html'),
        '--pdfa',
        'PDF/A-2b',
        '--attach',
        'factur-x.xml',
        '-o',
        'x.pdf',
      ],
      { cwd: folder },
    );
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--attach: PDF/A-2b cannot carry attachments');
    // The pages are Chromium's still.
    const read = await readPdf(pdf);
    expect(read.pages[0]!.text).toContain('Invoice');
  }, 60_000);

  it('the bundled CLI (npm run build) writes it too, loading pdf-lib only for a render that asks', async () => {
    const folder = await tempDir();
    await writeFile(join(folder, 'page.html'), '<!doctype html><html lang="en"><title>T</title><p>x</p></html>');
    await writeFile(join(folder, 'data.xml'), cii);
    // Says on standard error when pdf-lib is first loaded, whichever build of it.
    const hook = join(folder, 'hook.cjs');
    await writeFile(
      hook,
      `const Module = require('module'); const load = Module._load; let said = false;
Module._load = function (request, ...rest) {
  if (!said && request.includes('pdf-lib')) { said = true; process.stderr.write('pdf-lib loaded\\n'); }
  return load.call(this, request, ...rest);
};`,
    );
    const env = { NODE_OPTIONS: `--require ${hook}` };
    const page = join(folder, 'page.html');
    const run = await pdfrender(
      ['render', page, '--pdfa', 'PDF/A-3b', '--attach', 'data.xml;relationship=Data', '-o', 'out.pdf'],
      { cwd: folder, env },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('pdf-lib loaded');
    const pdf = new Uint8Array(await readFile(join(folder, 'out.pdf')));
    expectPdfa(pdf, 3);
    expect(detachAll(pdf).files.get('data.xml')!.equals(cii)).toBe(true);
    const plain = await pdfrender(['render', page, '-o', 'plain.pdf'], { cwd: folder, env });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).not.toContain('pdf-lib loaded');
  }, 60_000);

  it('render-sync: PDF/A-2b of the tagged 50-page report keeps its structure, language and outline', async () => {
    const htmlContent = (await readFile(join(fixtures, 'report/report.html'), 'utf8')).replace(
      'fonts/DejaVuSerif.ttf',
      `data:font/ttf;base64,${(await readFile(join(fixtures, 'report/fonts/DejaVuSerif.ttf'))).toString('base64')}`,
    );
    const response = await fetch(`${server.url}/api/pdfs/render-sync`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/pdf' },
      body: JSON.stringify({ htmlContent, tagged: true, outline: true, pdfa: 'pdf/a-2b' }),
    });
    expect(response.status).toBe(200);
    const pdf = new Uint8Array(await response.arrayBuffer());
    const { catalog, xmp } = expectPdfa(pdf, 2);
    expect(catalog['/StructTreeRoot']).toBeDefined();
    expect(catalog['/Lang']).toBe('u:en');
    expect(xmp(ns.dc, 'language')).toEqual(['en']);
    expect(catalog['/AF']).toBeUndefined();
    expect((await readPdf(pdf)).outline.length).toBeGreaterThan(0);
  }, 120_000);

  it('render-async: PDF/A-3b with an attachment, kept with the job', async () => {
    const pdf = await renderAsyncPdf(server, {
      identifier: 'pdfa-async',
      ...(await invoiceFiles()),
      pdfa: 'PDF/A-3b',
      attachments: [{ name: 'factur-x.xml', content: cii.toString('base64'), relationship: 'Data' }],
    });
    expectPdfa(pdf, 3);
    expect(detachAll(pdf).files.get('factur-x.xml')!.equals(cii)).toBe(true);
  }, 60_000);

  it('refuses a level it does not write, naming the field', async () => {
    const response = await postJson(server, '/api/pdfs/render-sync', { htmlContent: '<p>x</p>', pdfa: 'PDF/A-1b' });
    expect(response.status).toBe(422);
    expect(((await response.json()) as { errors: Record<string, string[]> }).errors).toEqual({
      pdfa: ['must be "PDF/A-2b" or "PDF/A-3b" (got "PDF/A-1b")'],
    });
  });
});

describe('PDF/A rules pdfrender cannot mend, and those it mends', () => {
  /** A one-page PDF made by pdf-lib, changed by `change`. */
  async function pdfWith(change: (document: PDFDocument) => Promise<void> | void): Promise<Uint8Array> {
    const document = await PDFDocument.create();
    document.addPage([200, 200]);
    await change(document);
    return document.save({ useObjectStreams: false });
  }
  const failure = async (pdf: Uint8Array) => {
    try {
      await archivePdf(pdf, { pdfa: 'PDF/A-3b', attachments: null });
    } catch (error) {
      expect(isPdfRenderError(error) && error.code).toBe('RENDER_PDF_FAILED');
      return (error as Error).message;
    }
    throw new Error('expected the PDF/A finishing to fail');
  };

  it('fails naming the rule: a font not embedded', async () => {
    const pdf = await pdfWith(async (document) => {
      const font = await document.embedFont(StandardFonts.Helvetica);
      document.getPage(0).drawText('Hi', { font, x: 10, y: 10 });
    });
    expect(await failure(pdf)).toBe(
      'the PDF cannot be made PDF/A-3b: ISO 19005-2 6.2.11.4.1: the font Helvetica is not embedded',
    );
  });

  it('fails naming the rule: a JavaScript action', async () => {
    const pdf = await pdfWith((document) => {
      document.catalog.set(PDFName.of('OpenAction'), document.context.obj({ S: 'JavaScript', JS: 'app.alert(1)' }));
    });
    expect(await failure(pdf)).toBe(
      'the PDF cannot be made PDF/A-3b: ISO 19005-2 6.5.1: the PDF holds a JavaScript action, which PDF/A forbids',
    );
  });

  it('keeps a PDF/UA claim the PDF already makes (compressed or not), described as PDF/A asks', async () => {
    const pdf = await pdfWith((document) => {
      const xmp = xmpPacket({ pdfua: 1, title: 'T' });
      document.catalog.set(
        PDFName.of('Metadata'),
        document.context.register(document.context.flateStream(xmp, { Type: 'Metadata', Subtype: 'XML' })),
      );
    });
    const xmp = xmpOf((await archivePdf(pdf, { pdfa: 'PDF/A-2b', attachments: null })).pdf);
    expect(xmp('http://www.aiim.org/pdfua/ns/id/', 'part')).toEqual(['1']);
    expect(xmp(ns.pdfaid, 'part')).toEqual(['2']);
    expect(xmp('http://www.aiim.org/pdfa/ns/schema#', 'prefix')).toEqual(['pdfuaid']);
    // Without the claim, none is made.
    const plain = xmpOf((await archivePdf(await pdfWith(() => {}), { pdfa: 'PDF/A-2b', attachments: null })).pdf);
    expect(plain('http://www.aiim.org/pdfua/ns/id/', 'part')).toEqual([]);
  });

  it("takes a finishing feature's own files and XMP schema (Factur-X's way in)", async () => {
    const fx = 'urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#';
    const { pdf: finished } = await archivePdf(await pdfWith(() => {}), {
      pdfa: 'PDF/A-3b',
      attachments: [{ name: 'a.csv', content: 'YSxi', mediaType: 'text/csv', relationship: 'Data', description: null }],
      files: [{ name: 'factur-x.xml', bytes: cii, mediaType: 'text/xml', relationship: 'Alternative' }],
      xmpExtensions: [
        {
          namespace: fx,
          prefix: 'fx',
          schema: 'Factur-X PDFA Extension Schema',
          properties: [
            { name: 'DocumentType', valueType: 'Text', category: 'external', description: 'type', value: 'INVOICE' },
          ],
        },
      ],
    });
    expect(qpdfCheck(finished).status).toBe(0);
    const { files } = detachAll(finished);
    expect(files.get('factur-x.xml')!.equals(cii)).toBe(true);
    expect(files.get('a.csv')!.toString()).toBe('a,b');
    const xmp = xmpOf(finished);
    expect(xmp(fx, 'DocumentType')).toEqual(['INVOICE']);
    expect(xmp('http://www.aiim.org/pdfa/ns/schema#', 'namespaceURI')).toEqual([fx]);
    expect(xmp(ns.pdfaid, 'part')).toEqual(['3']);
  });

  it('mends an interpolated image and a link annotation not flagged to print', async () => {
    const pdf = await pdfWith((document) => {
      const { context } = document;
      const image = context.register(
        context.stream(new Uint8Array(3), {
          Type: 'XObject',
          Subtype: 'Image',
          Width: 1,
          Height: 1,
          ColorSpace: 'DeviceRGB',
          BitsPerComponent: 8,
          Interpolate: true,
        }),
      );
      const page = document.getPage(0);
      page.node.setXObject(PDFName.of('Im0'), image);
      page.node.set(
        PDFName.of('Annots'),
        context.obj([context.obj({ Type: 'Annot', Subtype: 'Link', Rect: [0, 0, 10, 10], F: 2 })]),
      );
    });
    const { pdf: finished, mended } = await archivePdf(pdf, { pdfa: 'PDF/A-3b', attachments: null });
    // Said, for the render's warnings.
    expect(mended.sort()).toEqual([
      'ISO 19005-2 6.2.8: an image asked to be interpolated (/Interpolate set to false)',
      'ISO 19005-2 6.3.2: a Link annotation was not flagged to print (/F set to 4)',
    ]);
    const { catalog, dict, resolve: follow } = qpdfObjects(finished);
    const pages = dict((dict(catalog['/Pages'])['/Kids'] as string[])[0]);
    const xobject = dict((pages['/Resources'] as Record<string, Record<string, string>>)['/XObject']!['/Im0']);
    expect(xobject['/Interpolate']).toBe(false);
    const [annotation] = follow(pages['/Annots']) as Record<string, unknown>[];
    expect(annotation!['/F']).toBe(4);
  });
});
