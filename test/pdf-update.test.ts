/**
 * The small incremental update every tagged render writes (src/engine/document/pdf-update.ts), its
 * lexical syntax (pdf-syntax.ts) and the template artifacts (template-artifacts.ts), on PDFs and
 * content streams made here byte by byte, so each case says exactly what the input was. What the
 * update writes is read back by itself and by qpdf, which is not the code under test.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { entryRef, openPdfUpdate } from '../src/engine/document/pdf-update.js';
import { decodeTextString, pdfDate, readDict, textString } from '../src/engine/document/pdf-syntax.js';
import { markTemplates } from '../src/engine/document/template-artifacts.js';
import { finishDocument } from '../src/engine/document/document-finish.js';
import { removeTempDirs, tempDir } from './support/files.js';

afterAll(removeTempDirs);

// A one-page PDF as Chromium lays one out: objects, a cross-reference table, a trailer.
function minimalPdf(content: string, { trailerExtra = '' } = {}): Buffer {
  const stream = deflateSync(Buffer.from(content, 'latin1'));
  const objects = [
    '<</Type /Catalog /Pages 2 0 R /Lang (de)>>',
    '<</Type /Pages /Kids [3 0 R] /Count 1>>',
    '<</Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R>>',
    null, // the content stream
    "<</Title (Rechnung \\(Entwurf\\)) /Producer (Skia/PDF m156) /CreationDate (D:20261126202425+00'00')>>",
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  objects.forEach((text, index) => {
    offsets.push(length);
    const body =
      text === null
        ? Buffer.concat([
            Buffer.from(`${index + 1} 0 obj\n<</Filter /FlateDecode\n/Length ${stream.length}>> stream\n`, 'latin1'),
            stream,
            Buffer.from('\nendstream\nendobj\n', 'latin1'),
          ])
        : Buffer.from(`${index + 1} 0 obj\n${text}\nendobj\n`, 'latin1');
    parts.push(body);
    length += body.length;
  });
  const xref = [
    'xref',
    `0 ${objects.length + 1}`,
    '0000000000 65535 f ',
    ...offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n `),
  ].join('\n');
  parts.push(
    Buffer.from(
      `${xref}\ntrailer\n<</Size ${objects.length + 1}\n/Root 1 0 R\n/Info 5 0 R${trailerExtra}>>\nstartxref\n${length}\n%%EOF`,
      'latin1',
    ),
  );
  return Buffer.concat(parts);
}

async function qpdfJson(pdf: Uint8Array): Promise<Record<string, { value?: Record<string, unknown> }>> {
  const file = join(await tempDir(), 'in.pdf');
  writeFileSync(file, pdf);
  expect(execFileSync('qpdf', ['--check', file], { encoding: 'utf8' })).toMatch(/No syntax or stream encoding errors/);
  return (JSON.parse(execFileSync('qpdf', ['--json=2', file], { encoding: 'utf8' })) as { qpdf: [unknown, never] })
    .qpdf[1];
}

describe('openPdfUpdate', () => {
  it('reads the objects it needs and appends new versions that qpdf and a second update both read', async () => {
    const update = openPdfUpdate(minimalPdf('q 1 0 0 1 0 0 cm Q'))!;
    const root = entryRef(update.trailer, 'Root')!;
    const catalog = update.dict(root)!;
    expect(catalog.get('Lang')).toBe('(de)');
    expect(decodeTextString(update.dict(5)!.get('Title')!)).toBe('Rechnung (Entwurf)');
    expect(update.streamData(4)!.data.toString('latin1')).toBe('q 1 0 0 1 0 0 cm Q');
    const added = update.allocate();
    expect(added).toBe(6);
    update.set(added, { dict: new Map([['Type', '/Metadata']]), data: Buffer.from('<x/>') });
    catalog.set('Metadata', `${added} 0 R`);
    update.set(root, catalog);
    const once = update.bytes();

    const objects = await qpdfJson(once);
    expect(objects['obj:1 0 R']?.value).toMatchObject({ '/Metadata': '6 0 R', '/Lang': 'u:de' });
    // A second update over the first: the newest version of each object wins, the rest still found.
    const again = openPdfUpdate(once)!;
    expect(again.dict(1)!.get('Metadata')).toBe('6 0 R');
    expect(again.dict(3)!.get('Contents')).toBe('4 0 R');
    again.set(5, new Map([['Title', textString('Faktura 𝄞 ✓')]]));
    const twice = again.bytes();
    const info = (await qpdfJson(twice))['obj:5 0 R']?.value as { '/Title': string };
    expect(info['/Title']).toBe('u:Faktura 𝄞 ✓');
    expect(decodeTextString(openPdfUpdate(twice)!.dict(5)!.get('Title')!)).toBe('Faktura 𝄞 ✓');
  });

  it('leaves what it does not read alone: an encrypted file, a cross-reference stream, a truncated file', () => {
    expect(openPdfUpdate(minimalPdf('q Q', { trailerExtra: '\n/Encrypt 9 0 R' }))).toBeUndefined();
    const withStream = Buffer.from(
      minimalPdf('q Q')
        .toString('latin1')
        .replace(/startxref\n\d+/, 'startxref\n15'),
      'latin1',
    );
    expect(openPdfUpdate(withStream)).toBeUndefined();
    expect(openPdfUpdate(minimalPdf('q Q').subarray(0, 200))).toBeUndefined();
  });

  it('writes nothing when nothing is set', () => {
    const pdf = minimalPdf('q Q');
    expect(openPdfUpdate(pdf)!.bytes()).toBe(pdf);
  });
});

describe('finishDocument on a PDF it cannot read', () => {
  const unreadable = Buffer.from(
    minimalPdf('q Q')
      .toString('latin1')
      .replace(/startxref\n\d+/, 'startxref\n15'),
    'latin1',
  );
  const facts = { tagged: true, templates: false, metadata: null, declaredLang: 'de' };

  it('fails naming the metadata rather than drop it without a word', async () => {
    await expect(
      finishDocument(
        unreadable,
        { ...facts, metadata: { title: 'Q3', keywords: undefined, creationDate: undefined } },
        new AbortController().signal,
      ),
    ).rejects.toMatchObject({ code: 'RENDER_PDF_FAILED', message: expect.stringMatching(/metadata/) });
  });

  it('leaves a tagged PDF without metadata as it was, claiming nothing', async () => {
    const finished = await finishDocument(unreadable, facts, new AbortController().signal);
    expect(finished.pdf).toBe(unreadable);
    expect(finished.accessibility).toEqual({ tagged: true, pdfua: false, missing: [] });
  });
});

describe('pdf-syntax', () => {
  it('decodes literal strings with their escapes, and UTF-16BE strings, hex or literal', () => {
    expect(decodeTextString('(a\\(b\\)\\\\c\\n\\101\\\nd)')).toBe('a(b)\\c\nAd');
    expect(decodeTextString('<FEFF00E9>')).toBe('é');
    expect(decodeTextString('(\\376\\377\\000\\351)')).toBe('é');
    expect(decodeTextString(textString('Ünïcødé 😀'))).toBe('Ünïcødé 😀');
  });

  it('reads a dictionary with nested values, references and strings holding delimiters', () => {
    const { dict, end } = readDict('<</A [1 0 R 2 0 R] /B <</C (x>>y)>> /D 3 0 R /E /Name>> trailing', 0);
    expect(Object.fromEntries(dict)).toEqual({ A: '[1 0 R 2 0 R]', B: '<</C (x>>y)>>', D: '3 0 R', E: '/Name' });
    expect(end).toBe('<</A [1 0 R 2 0 R] /B <</C (x>>y)>> /D 3 0 R /E /Name>>'.length);
  });

  it('writes PDF dates in UTC', () => {
    expect(pdfDate(new Date('2026-11-26T20:24:25.123Z'))).toBe('(D:20261126202425Z)');
  });
});

describe('markTemplates', () => {
  // Chromium's shape: the body clipped to the printable area, its last marked content closed only
  // after its clip is restored, then the templates clipped to the whole page.
  const body = 'q\n115 115 2300 3000 re\nW* n\nq\n/P <</MCID 0 >>BDC\nBT (q \\) Q EMC) Tj ET\nQ\nQ\n';
  const templates = 'q\n0 0 2550 3300 re\nW* n\nq\nEMC\nBT <002e> Tj ET\nQ\nQ\n';

  it('wraps the templates in one /Artifact sequence, closing the body content before them', () => {
    const marked = markTemplates(`.24 0 0 -.24 0 792 cm\n${body}${templates}`)!;
    expect(marked).toBe(
      `.24 0 0 -.24 0 792 cm\n${body}EMC\n/Artifact <</Type /Pagination>> BDC\nq\n0 0 2550 3300 re\nW* n\nq\n\nBT <002e> Tj ET\nQ\nQ\n\nEMC\n`,
    );
  });

  it('leaves a page without templates, or with body blocks only, as it is', () => {
    expect(markTemplates(body)).toBeUndefined();
    expect(markTemplates(`${body}q\n200 200 100 100 re\nW n\nQ\n`)).toBeUndefined();
    expect(markTemplates(`${body}BI /W 1 ID x EI\n${templates}`)).toBeUndefined();
  });
});
