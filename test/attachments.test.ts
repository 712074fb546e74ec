/**
 * Attachments (issue 30 §3): files a request carries, embedded in the PDF with their relationship,
 * from the CLI (--attach), render-sync (JSON and multipart) and render-async (kept with the job).
 * Real Chromium, a real server on an ephemeral port; the PDF read back by poppler (pdfdetach: the
 * bytes saved equal those sent) and qpdf (the /AF array, the file specifications, the sorted name
 * tree); and the bounds: count, size, names, relationships, with PDF/A-2b.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxAttachmentBytes, maxAttachments } from '../src/request-attachments.js';
import { inProcessCli } from './support/cli-in-process.js';
import { removeTempDirs, tempDir } from './support/files.js';
import { detachAll, qpdfCheck, qpdfObjects } from './support/pdf-tools.js';
import { renderAsyncPdf } from './support/async-pdf.js';
import { postJson, startServer, type TestServer } from './support/server.js';

let server: TestServer;
const cli = inProcessCli();

beforeAll(async () => {
  // Room in the body for the 413 case: past the attachments' limit, inside the body's.
  server = await startServer({ maxBody: '40mb' });
});

afterAll(async () => {
  await server.close();
  await cli.close();
  await removeTempDirs();
});

const xml = Buffer.from('<?xml version="1.0"?><Invoice xmlns="urn:example">Grüße & <Total>42</Total></Invoice>\n');
const csv = Buffer.from('item,amount\nwidget,42\n');
const binary = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 37) % 256));
const html = '<!doctype html><html lang="en"><title>Invoice</title><h1>Invoice 42</h1></html>';

/** What a PDF says of its embedded files, read by qpdf: per name, its file specification and stream dictionary. */
function embedded(pdf: Uint8Array) {
  const { catalog, dict, resolve } = qpdfObjects(pdf);
  const af = (catalog['/AF'] as string[]).map((ref) => dict(ref));
  const tree = dict(dict(catalog['/Names'])['/EmbeddedFiles']);
  const names = (tree['/Names'] as string[]).filter((_, i) => i % 2 === 0);
  const specs = af.map((spec) => ({
    F: spec['/F'],
    UF: spec['/UF'],
    Desc: spec['/Desc'],
    AFRelationship: spec['/AFRelationship'],
    stream: dict((resolve(spec['/EF']) as Record<string, string>)['/F']),
  }));
  return { names, specs };
}

/** The saved copies of the embedded files, by name, must be the bytes sent. */
function expectFiles(pdf: Uint8Array, expected: Record<string, Buffer>) {
  const { files } = detachAll(pdf);
  expect([...files.keys()].sort()).toEqual(Object.keys(expected).sort());
  for (const [name, bytes] of Object.entries(expected)) expect(files.get(name)!.equals(bytes), name).toBe(true);
}

describe('attachments in the PDF', () => {
  it('render-sync (JSON): each file embedded with its relationship, media type, size, date and description', async () => {
    const response = await fetch(`${server.url}/api/pdfs/render-sync`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/pdf' },
      body: JSON.stringify({
        htmlContent: html,
        attachments: [
          { name: 'invoice.xml', content: xml.toString('base64'), relationship: 'Data', description: 'The data' },
          { name: 'Übersicht.csv', content: csv.toString('base64'), relationship: 'Supplement' },
          { name: 'blob.bin', content: binary.toString('base64'), mediaType: 'application/x-custom' },
        ],
      }),
    });
    expect(response.status).toBe(200);
    const pdf = new Uint8Array(await response.arrayBuffer());
    expect(qpdfCheck(pdf).status).toBe(0);
    expectFiles(pdf, { 'invoice.xml': xml, 'Übersicht.csv': csv, 'blob.bin': binary });
    const { names, specs } = embedded(pdf);
    // The name tree's keys in sorted order, as a name tree must be.
    expect(names).toEqual(['u:blob.bin', 'u:invoice.xml', 'u:Übersicht.csv']);
    expect(specs.map(({ stream: _stream, ...spec }) => spec)).toEqual([
      { F: 'u:invoice.xml', UF: 'u:invoice.xml', Desc: 'u:The data', AFRelationship: '/Data' },
      // /F is an ASCII stand-in; the name in full is /UF.
      { F: 'u:_bersicht.csv', UF: 'u:Übersicht.csv', Desc: undefined, AFRelationship: '/Supplement' },
      { F: 'u:blob.bin', UF: 'u:blob.bin', Desc: undefined, AFRelationship: '/Unspecified' },
    ]);
    expect(specs.map(({ stream }) => [stream['/Type'], stream['/Subtype']])).toEqual([
      ['/EmbeddedFile', '/text/xml'],
      ['/EmbeddedFile', '/text/csv'],
      ['/EmbeddedFile', '/application/x-custom'],
    ]);
    const params = specs.map(({ stream }) => stream['/Params'] as Record<string, unknown>);
    expect(params.map((p) => p['/Size'])).toEqual([xml.length, csv.length, binary.length]);
    for (const p of params) expect(p['/ModDate']).toMatch(/^u:D:\d{14}Z$/);
  }, 60_000);

  it('render-sync (multipart): files uploaded as attachments parts, described by an attachments field', async () => {
    const form = new FormData();
    form.set('htmlContent', html);
    form.append('attachments', new Blob([xml], { type: 'application/xml' }), 'invoice.xml');
    form.append('attachments', new Blob([csv]), 'data.csv');
    form.append(
      'attachments',
      JSON.stringify([{ name: 'invoice.xml', relationship: 'Alternative', description: 'CII' }]),
    );
    const response = await fetch(`${server.url}/api/pdfs/render-sync`, {
      method: 'POST',
      headers: { Accept: 'application/pdf' },
      body: form,
    });
    expect(response.status).toBe(200);
    const pdf = new Uint8Array(await response.arrayBuffer());
    expectFiles(pdf, { 'invoice.xml': xml, 'data.csv': csv });
    const { specs } = embedded(pdf);
    expect(specs.map((spec) => [spec.UF, spec.AFRelationship, spec.Desc, spec.stream['/Subtype']])).toEqual([
      ['u:invoice.xml', '/Alternative', 'u:CII', '/application/xml'],
      // A part with no type of its own: the media type its extension stands for.
      ['u:data.csv', '/Unspecified', undefined, '/text/csv'],
    ]);

    const twice = new FormData();
    twice.set('htmlContent', html);
    twice.append('attachments', new Blob([csv]), 'data.csv');
    twice.append('attachments', new Blob([csv]), 'data.csv');
    const refused = await fetch(`${server.url}/api/pdfs/render-sync`, { method: 'POST', body: twice });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { errors: Record<string, string[]> }).errors.attachments).toEqual([
      '"data.csv" is uploaded twice',
    ]);
  }, 60_000);

  it('the CLI: --attach, with ;relationship=, ;type= and ;description=', async () => {
    const folder = await tempDir();
    await writeFile(join(folder, 'invoice.html'), html);
    await writeFile(join(folder, 'invoice.xml'), xml);
    await writeFile(join(folder, 'notes.txt'), csv);
    const run = await cli.run(
      [
        'render',
        'invoice.html',
        '-o',
        'out.pdf',
        '--attach',
        'invoice.xml;relationship=Source;description=The source; with a semicolon',
        '--attach',
        'notes.txt;type=text/csv',
      ],
      { cwd: folder },
    );
    expect(run.code, run.stderr).toBe(0);
    const pdf = new Uint8Array(await readFile(join(folder, 'out.pdf')));
    expectFiles(pdf, { 'invoice.xml': xml, 'notes.txt': csv });
    expect(
      embedded(pdf).specs.map((spec) => [spec.UF, spec.AFRelationship, spec.Desc, spec.stream['/Subtype']]),
    ).toEqual([
      ['u:invoice.xml', '/Source', 'u:The source; with a semicolon', '/text/xml'],
      ['u:notes.txt', '/Unspecified', undefined, '/text/csv'],
    ]);

    const missing = await cli.run(['render', 'invoice.html', '-o', 'x.pdf', '--attach', 'nope.xml'], { cwd: folder });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--attach: cannot read nope.xml: ENOENT');
    const bad = await cli.run(['render', 'invoice.html', '-o', 'x.pdf', '--attach', 'invoice.xml;relationship=Other'], {
      cwd: folder,
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('must be one of Data, Source, Alternative, Supplement, Unspecified (got "Other")');
  }, 60_000);

  it('render-async keeps the attachments with the job and embeds them when it renders', async () => {
    const pdf = await renderAsyncPdf(server, {
      identifier: 'with-attachments',
      htmlContent: html,
      attachments: [{ name: 'invoice.xml', content: xml.toString('base64'), relationship: 'Data' }],
    });
    expectFiles(pdf, { 'invoice.xml': xml });
    expect(embedded(pdf).specs.map((spec) => spec.AFRelationship)).toEqual(['/Data']);
  }, 60_000);
});

describe('attachment bounds', () => {
  const sync = async (body: Record<string, unknown>) => {
    const response = await postJson(server, '/api/pdfs/render-sync', { htmlContent: html, ...body });
    return {
      status: response.status,
      json: (await response.json()) as { message: string; errors?: Record<string, string[]> },
    };
  };
  const file = (name: string, bytes = csv) => ({ name, content: bytes.toString('base64') });

  it(`refuses more than ${maxAttachments} files (422, naming the limit)`, async () => {
    const { status, json } = await sync({
      attachments: Array.from({ length: maxAttachments + 1 }, (_, i) => file(`f${i}.csv`)),
    });
    expect(status).toBe(422);
    expect(json.errors?.attachments).toEqual([`at most ${maxAttachments} files`]);
  });

  it(`refuses more than ${maxAttachmentBytes / 1024 / 1024} MB together (413, naming the limit)`, async () => {
    const half = Buffer.alloc(maxAttachmentBytes / 2 + 1, 1);
    const { status, json } = await sync({ attachments: [file('a.bin', half), file('b.bin', half)] });
    expect(status).toBe(413);
    expect(json.message).toBe(
      `the attachments hold ${maxAttachmentBytes + 2} bytes together, more than the limit of ${maxAttachmentBytes / 1024 / 1024} MB`,
    );
  }, 30_000);

  it('refuses bad names, a name twice, a bad relationship, media type or content, each by its field', async () => {
    const { status, json } = await sync({
      attachments: [
        file('../etc/passwd'),
        file('ok.csv'),
        file('OK.csv'),
        { ...file('tab\there.csv') },
        { ...file('r.csv'), relationship: 'Friend' },
        { ...file('m.csv'), mediaType: 'not a type' },
        { name: 'c.csv', content: 'not base64!' },
        { name: 'x.csv' },
        { ...file('k.csv'), relation: 'Data' },
      ],
    });
    expect(status).toBe(422);
    expect(json.errors).toEqual({
      'attachments.0.name': ['must be a file name: no "/", "\\" or control characters'],
      'attachments.2.name': ['"OK.csv" is attached twice'],
      'attachments.3.name': ['must be a file name: no "/", "\\" or control characters'],
      'attachments.4.relationship': [
        'must be one of Data, Source, Alternative, Supplement, Unspecified (got "Friend")',
      ],
      'attachments.5.mediaType': ['must be a media type such as "text/xml"'],
      'attachments.6.content': ['must be the file as base64 (A-Z, a-z, 0-9, "+", "/", "=" padding)'],
      'attachments.7.content': ['must be the file as a string of base64'],
      'attachments.8': ['has no field "relation" (name, content, mediaType, relationship, description)'],
    });
  });

  it('refuses attachments with PDF/A-2b, naming both fields; PDF/A-3b takes them', async () => {
    const refused = await sync({ pdfa: 'PDF/A-2b', attachments: [file('a.csv')] });
    expect(refused.status).toBe(422);
    const message =
      'PDF/A-2b cannot carry attachments (PDF/A-2 embeds only files that are PDF/A themselves): ask for pdfa "PDF/A-3b" with attachments';
    expect(refused.json.errors).toEqual({ pdfa: [message], attachments: [message] });
  });
});
