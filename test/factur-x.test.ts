/**
 * Factur-X / ZUGFeRD invoices (issue 30 §4): the bench's invoice with its EN 16931 CII XML renders to
 * a Factur-X PDF/A-3b from the built CLI, render-sync (multipart, the XML uploaded as a file) and
 * render-async (JSON, the webhook's file), and readers that are not pdfrender's own check the
 * result: poppler (pdfdetach -list and -saveall: the name and the very bytes sent; pdfinfo -meta: the
 * XMP), qpdf (--json: the catalog's /AF, /AFRelationship, /Subtype; --check: a sound file) and
 * pdf.js (its attachments). Bad XML is a 422 naming the field, before anything renders or queues.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { DOMParser, type Element } from '@xmldom/xmldom';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pdfrender } from './support/cli.js';
import { removeTempDirs, tempDir } from './support/files.js';
import { postJson, startServer, type TestServer } from './support/server.js';
import { renderAsyncPdf } from './support/async-pdf.js';
import { detachAll, pdfinfoMeta, qpdfCheck, qpdfObjects } from './support/pdf-tools.js';

const invoiceDir = resolve(import.meta.dirname, '../fixtures/invoice');
let server: TestServer;
// Read as the module loads: the refusals' cases are built from it before any test runs.
const xml = readFileSync(join(invoiceDir, 'factur-x.xml'), 'utf8');
const minimumXml = readFileSync(join(invoiceDir, 'factur-x-minimum.xml'), 'utf8');
let invoice: { htmlContent: string; assets: Record<string, string> };

beforeAll(async () => {
  server = await startServer({});
  const base64 = async (name: string) => (await readFile(join(invoiceDir, name))).toString('base64');
  invoice = {
    htmlContent: await readFile(join(invoiceDir, 'invoice.html'), 'utf8'),
    assets: { 'invoice.css': await base64('invoice.css'), 'logo.svg': await base64('logo.svg') },
  };
});

afterAll(async () => {
  await server.close();
  await removeTempDirs();
});

const run = (command: string, args: string[]) => execFileSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 26 });

/** The XMP packet as pdfinfo prints it, read with namespaces resolved: the texts of the elements `name` in `namespace`. */
function xmpOf(pdf: Uint8Array) {
  const document = new DOMParser().parseFromString(pdfinfoMeta(pdf), 'text/xml');
  return (namespace: string, name: string): string[] =>
    Array.from(document.getElementsByTagNameNS(namespace, name) as unknown as ArrayLike<Element>).map(
      (element) => element.textContent ?? '',
    );
}

/** The PDF behind a render-sync JSON answer's fileUrl. */
async function syncPdf(response: Response): Promise<Uint8Array> {
  expect(response.status).toBe(200);
  const { fileUrl } = (await response.json()) as { fileUrl: string };
  return new Uint8Array(await (await fetch(fileUrl)).arrayBuffer());
}

const fxNamespace = 'urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#';

/** What independent readers find of the embedded invoice, checked against what was sent. */
async function expectFacturX(
  pdf: Uint8Array,
  sent: { xml: string; name: string; relationship: string; level: string; namespace?: string },
): Promise<void> {
  const namespace = sent.namespace ?? fxNamespace;
  // poppler: one embedded file, by its name; saved back, the very bytes sent.
  const detached = detachAll(pdf);
  expect(detached.list.trim().split('\n')).toEqual(['1 embedded files', `1: ${sent.name}`]);
  expect(detached.files.get(sent.name)?.equals(Buffer.from(sent.xml, 'utf8'))).toBe(true);
  // qpdf: the catalog's /AF lists the file specification, related as the profile asks, of type text/xml.
  const { catalog, dict } = qpdfObjects(pdf);
  const af = catalog['/AF'] as string[];
  expect(af).toHaveLength(1);
  const spec = dict(af[0]);
  expect(spec).toMatchObject({
    '/Type': '/Filespec',
    '/AFRelationship': `/${sent.relationship}`,
    '/UF': `u:${sent.name}`,
  });
  const embedded = dict(spec['/EF'])['/F'];
  expect(dict(embedded)).toMatchObject({ '/Type': '/EmbeddedFile', '/Subtype': '/text/xml' });
  // As the file writes it: the "/" of text/xml escaped inside the name.
  const path = join(await tempDir(), 'invoice.pdf');
  await writeFile(path, pdf);
  expect(run('qpdf', [`--show-object=${String(embedded).split(' ')[0]}`, path])).toMatch(/\/Subtype \/text#2[fF]xml\b/);
  expect(dict(dict(catalog['/Names'])['/EmbeddedFiles'])['/Names']).toEqual([`u:${sent.name}`, af[0]]);
  // pdfinfo -meta: the Factur-X schema's values, described as PDF/A asks, beside the PDF/A-3b identification.
  const xmp = xmpOf(pdf);
  const fx = (name: string) => xmp(namespace, name);
  expect([fx('DocumentType'), fx('DocumentFileName'), fx('ConformanceLevel')]).toEqual([
    ['INVOICE'],
    [sent.name],
    [sent.level],
  ]);
  expect(fx('Version')).toEqual([namespace === fxNamespace ? '1.0' : '2p0']);
  expect(xmp('http://www.aiim.org/pdfa/ns/schema#', 'namespaceURI')).toContain(namespace);
  expect([
    xmp('http://www.aiim.org/pdfa/ns/id/', 'part'),
    xmp('http://www.aiim.org/pdfa/ns/id/', 'conformance'),
  ]).toEqual([['3'], ['B']]);
  // qpdf --check: a sound file.
  expect(qpdfCheck(pdf)).toMatchObject({
    status: 0,
    output: expect.stringContaining('No syntax or stream encoding errors found'),
  });
  // pdf.js: the same file, the same bytes.
  const document = await getDocument({ data: new Uint8Array(pdf), isEvalSupported: false }).promise;
  try {
    const attachments = (await document.getAttachments()) as Record<string, { filename: string; content: Uint8Array }>;
    expect(
      Object.values(attachments).map(({ filename, content }) => [filename, Buffer.from(content).toString('utf8')]),
    ).toEqual([[sent.name, sent.xml]]);
  } finally {
    await document.destroy();
  }
}

describe('a Factur-X invoice', () => {
  it('renders from the built CLI: --factur-x and --factur-x-profile', async () => {
    const dir = await tempDir();
    const out = join(dir, 'invoice.pdf');
    const cli = await pdfrender([
      'render',
      join(invoiceDir, 'invoice.html'),
      '-o',
      out,
      '--factur-x',
      join(invoiceDir, 'factur-x.xml'),
      '--factur-x-profile',
      'EN 16931',
    ]);
    expect([cli.code, cli.stderr]).toEqual([0, expect.stringContaining('invoice.pdf')]);
    await expectFacturX(await readFile(out), {
      xml,
      name: 'factur-x.xml',
      relationship: 'Alternative',
      level: 'EN 16931',
    });
    // The PDF is still the invoice people read.
    expect(run('pdftotext', ['-f', '1', '-l', '1', out, '-'])).toContain('Invoice INV-2026-0042');
  });

  it('renders from render-sync, the XML uploaded as a multipart file part', async () => {
    const form = new FormData();
    form.append('htmlContent', invoice.htmlContent);
    form.append('assets', JSON.stringify(invoice.assets));
    form.append('facturX', new Blob([xml], { type: 'text/xml' }), 'factur-x.xml');
    form.append('facturXProfile', 'en16931');
    const response = await fetch(`${server.url}/api/pdfs/render-sync`, {
      method: 'POST',
      headers: { Accept: 'application/pdf' },
      body: form,
    });
    expect(response.status).toBe(200);
    await expectFacturX(new Uint8Array(await response.arrayBuffer()), {
      xml,
      name: 'factur-x.xml',
      relationship: 'Alternative',
      level: 'EN 16931',
    });
  });

  it('renders from render-async: the stored request keeps the XML until the job renders', async () => {
    const pdf = await renderAsyncPdf(server, {
      identifier: 'factur-x',
      ...invoice,
      facturX: xml,
      facturXProfile: 'EN 16931',
    });
    await expectFacturX(pdf, { xml, name: 'factur-x.xml', relationship: 'Alternative', level: 'EN 16931' });
  });

  it('embeds a MINIMUM invoice as Data, and under ZUGFeRD 2.0 name with its own XMP schema', async () => {
    const response = await postJson(server, '/api/pdfs/render-sync', {
      htmlContent: '<h1>Invoice INV-2026-0042</h1>',
      facturX: minimumXml,
      facturXProfile: 'MINIMUM',
      facturXFileName: 'zugferd-invoice.xml',
    });
    await expectFacturX(await syncPdf(response), {
      xml: minimumXml,
      name: 'zugferd-invoice.xml',
      relationship: 'Data',
      level: 'MINIMUM',
      namespace: 'urn:zugferd:pdfa:CrossIndustryDocument:invoice:2p0#',
    });
  });
});

describe('a Factur-X invoice with attachments', () => {
  it('embeds the others beside the XML, all in /AF', async () => {
    const response = await postJson(server, '/api/pdfs/render-sync', {
      htmlContent: '<h1>Invoice INV-2026-0042</h1>',
      facturX: xml,
      facturXProfile: 'EN 16931',
      attachments: [
        {
          name: 'timesheet.csv',
          content: Buffer.from('day,hours\n1,8\n').toString('base64'),
          relationship: 'Supplement',
        },
      ],
    });
    const pdf = await syncPdf(response);
    // The name tree is sorted by name, which is the order poppler lists it in.
    expect(detachAll(pdf).list.trim().split('\n')).toEqual(['2 embedded files', '1: factur-x.xml', '2: timesheet.csv']);
    const { catalog, dict } = qpdfObjects(pdf);
    expect((catalog['/AF'] as string[]).map((ref) => [dict(ref)['/UF'], dict(ref)['/AFRelationship']]).sort()).toEqual([
      ['u:factur-x.xml', '/Alternative'],
      ['u:timesheet.csv', '/Supplement'],
    ]);
  });
});

describe('refusals, before anything renders or queues', () => {
  const ubl = '<?xml version="1.0"?>\n<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>';
  const cases: Array<[string, Record<string, unknown>, Record<string, string[]>]> = [
    [
      'malformed XML, naming its line',
      { facturX: xml.replace('</ram:Name>', '</ram:Nam>'), facturXProfile: 'EN 16931' },
      { facturX: [expect.stringMatching(/^is not well-formed XML \(line \d+\): /)] },
    ],
    [
      'a UBL invoice',
      { facturX: ubl, facturXProfile: 'EN 16931' },
      {
        facturX: [
          expect.stringMatching(/^must be a UN\/CEFACT CII invoice: .*got Invoice in namespace urn:oasis:.*\(UBL/),
        ],
      },
    ],
    [
      'a profile the XML is not of',
      { facturX: xml, facturXProfile: 'MINIMUM' },
      {
        facturXProfile: [
          expect.stringMatching(/^is MINIMUM, but .* is "urn:cen\.eu:en16931:2017", the EN 16931 profile's/),
        ],
      },
    ],
    [
      'a DOCTYPE',
      {
        facturX: xml.replace('<rsm:CrossIndustryInvoice', '<!DOCTYPE x [<!ENTITY a "b">]>\n<rsm:CrossIndustryInvoice'),
        facturXProfile: 'EN 16931',
      },
      { facturX: [expect.stringMatching(/^must not have a DOCTYPE \(line \d+\)/)] },
    ],
    [
      "an attachment under the invoice's name",
      { facturX: xml, facturXProfile: 'EN 16931', attachments: [{ name: 'factur-x.xml', content: 'PGEvPg==' }] },
      {
        attachments: [
          '"factur-x.xml" is the name the facturX invoice is embedded under: give the attachment another name',
        ],
      },
    ],
    [
      'PDF/A-2b, which cannot embed it',
      { facturX: xml, facturXProfile: 'EN 16931', pdfa: 'PDF/A-2b' },
      { pdfa: [expect.stringContaining('facturX')] },
    ],
  ];

  it.each(cases)('render-sync and render-async answer 422 for %s', async (_, fields, errors) => {
    const sync = await postJson(server, '/api/pdfs/render-sync', { htmlContent: '<p>x</p>', ...fields });
    expect(sync.status).toBe(422);
    expect(await sync.json()).toMatchObject({ outcome: 'VALIDATION_FAILED', errors });
    const queued = await postJson(server, '/api/pdfs/render-async', {
      htmlContent: '<p>x</p>',
      identifier: 'bad',
      ...fields,
    });
    expect(queued.status).toBe(422);
    expect(((await queued.json()) as { errors: unknown }).errors).toMatchObject(errors);
  });

  it('the CLI exits 2 naming the field', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'ubl.xml'), ubl);
    const cli = await pdfrender(
      [
        'render',
        join(invoiceDir, 'invoice.html'),
        '-o',
        join(dir, 'out.pdf'),
        '--factur-x',
        'ubl.xml',
        '--factur-x-profile',
        'EN 16931',
      ],
      { cwd: dir },
    );
    expect(cli.code).toBe(2);
    expect(cli.stderr).toMatch(/^pdfrender: --factur-x: must be a UN\/CEFACT CII invoice: .*got Invoice/);
  });
});
