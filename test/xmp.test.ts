/** The XMP packet writer, read back by a namespace-aware XML parser (@xmldom/xmldom), not by string matching. */
import { DOMParser, type Element } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import { xmpDate, xmpPacket, type XmpExtension } from '../src/engine/document/xmp.js';

// Written out here, not imported from the writer: a misspelt namespace there must fail here.
const ns = {
  x: 'adobe:ns:meta/',
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  dc: 'http://purl.org/dc/elements/1.1/',
  pdf: 'http://ns.adobe.com/pdf/1.3/',
  xmp: 'http://ns.adobe.com/xap/1.0/',
  xmpMM: 'http://ns.adobe.com/xap/1.0/mm/',
  pdfaid: 'http://www.aiim.org/pdfa/ns/id/',
  pdfuaid: 'http://www.aiim.org/pdfua/ns/id/',
  pdfaExtension: 'http://www.aiim.org/pdfa/ns/extension/',
  pdfaSchema: 'http://www.aiim.org/pdfa/ns/schema#',
  pdfaProperty: 'http://www.aiim.org/pdfa/ns/property#',
};

/** Parse a packet; a parse error or warning fails the test. */
function parse(packet: string) {
  const problems: string[] = [];
  const document = new DOMParser({
    onError: (level, message) => problems.push(`${level}: ${message}`),
  }).parseFromString(packet, 'text/xml');
  expect(problems).toEqual([]);
  return document;
}

/** The text of every element named `local` in `namespace`. */
const texts = (document: ReturnType<typeof parse>, namespace: string, local: string) =>
  Array.from(document.getElementsByTagNameNS(namespace, local)).map((node) => node.textContent);

const single = (document: ReturnType<typeof parse>, namespace: string, local: string) => {
  const found = texts(document, namespace, local);
  expect(found, `${namespace}${local}`).toHaveLength(1);
  return found[0];
};

const facturX: XmpExtension = {
  namespace: 'urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#',
  prefix: 'fx',
  schema: 'Factur-X PDFA Extension Schema',
  properties: [
    { name: 'DocumentType', valueType: 'Text', category: 'external', description: 'INVOICE', value: 'INVOICE' },
    { name: 'ConformanceLevel', valueType: 'Text', category: 'external', description: 'level', value: 'EN 16931' },
  ],
};

describe('xmpPacket', () => {
  it('writes the xpacket wrapper around x:xmpmeta and rdf:RDF', () => {
    const packet = xmpPacket({});
    expect(packet.startsWith('<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>')).toBe(true);
    expect(packet.endsWith('<?xpacket end="w"?>')).toBe(true);
    const root = parse(packet).documentElement!;
    expect([root.namespaceURI, root.localName]).toEqual([ns.x, 'xmpmeta']);
    const rdf = root.getElementsByTagNameNS(ns.rdf, 'RDF');
    expect(rdf).toHaveLength(1);
  });

  it('states every fact in its schema, dates in XMP form to the second in UTC', () => {
    const created = new Date('2026-11-26T20:24:25.678Z');
    const modified = new Date('2026-11-26T21:00:00.000+01:00');
    const document = parse(
      xmpPacket({
        title: 'Invoice 42',
        author: 'ACME',
        subject: 'March',
        keywords: 'a, b c',
        creator: 'Billing',
        producer: 'pdfrender',
        creationDate: created,
        modifyDate: modified,
        lang: 'de-CH',
        documentId: 'uuid:0f6c1a52-5d4e-4c37-9a51-2b8e0b6a1d11',
      }),
    );
    expect(texts(document, ns.dc, 'title')).toEqual(['Invoice 42Invoice 42']);
    const titles = Array.from(document.getElementsByTagNameNS(ns.dc, 'title')[0]!.getElementsByTagNameNS(ns.rdf, 'li'));
    expect(titles.map((li) => [li.getAttribute('xml:lang'), li.textContent])).toEqual([
      ['x-default', 'Invoice 42'],
      ['de-CH', 'Invoice 42'],
    ]);
    expect(single(document, ns.dc, 'creator')).toBe('ACME');
    expect(single(document, ns.dc, 'description')).toBe('March');
    expect(single(document, ns.dc, 'language')).toBe('de-CH');
    expect(single(document, ns.dc, 'format')).toBe('application/pdf');
    expect(single(document, ns.pdf, 'Keywords')).toBe('a, b c');
    expect(single(document, ns.pdf, 'Producer')).toBe('pdfrender');
    expect(single(document, ns.xmp, 'CreatorTool')).toBe('Billing');
    expect(single(document, ns.xmp, 'CreateDate')).toBe('2026-11-26T20:24:25Z');
    expect(single(document, ns.xmp, 'ModifyDate')).toBe('2026-11-26T20:00:00Z');
    expect(single(document, ns.xmpMM, 'DocumentID')).toBe('uuid:0f6c1a52-5d4e-4c37-9a51-2b8e0b6a1d11');
    expect(texts(document, ns.pdfaid, 'part')).toEqual([]);
    expect(xmpDate(created)).toBe('2026-11-26T20:24:25Z');
  });

  it('leaves out what it was not given', () => {
    const document = parse(xmpPacket({ title: 'T' }));
    expect(texts(document, ns.dc, 'creator')).toEqual([]);
    expect(texts(document, ns.pdf, 'Producer')).toEqual([]);
    expect(texts(document, ns.xmp, 'CreateDate')).toEqual([]);
    expect(texts(document, ns.pdfaExtension, 'schemas')).toEqual([]);
  });

  it('escapes markup and drops characters XML cannot carry', () => {
    const hostile = '</rdf:li></rdf:Alt>"<x & y>\u0001\u0007\uD800';
    const document = parse(xmpPacket({ title: hostile, author: hostile, lang: 'en"><evil' }));
    const title = document.getElementsByTagNameNS(ns.dc, 'title')[0]!.getElementsByTagNameNS(ns.rdf, 'li');
    expect(title[0]!.textContent).toBe('</rdf:li></rdf:Alt>"<x & y>');
    expect(title[1]!.getAttribute('xml:lang')).toBe('en"><evil');
    expect(single(document, ns.dc, 'creator')).toBe('</rdf:li></rdf:Alt>"<x & y>');
  });

  it('identifies PDF/A and PDF/UA, describing pdfuaid as an extension schema under PDF/A', () => {
    const document = parse(xmpPacket({ pdfa: { part: 3, conformance: 'B' }, pdfua: 1 }));
    expect(single(document, ns.pdfaid, 'part')).toBe('3');
    expect(single(document, ns.pdfaid, 'conformance')).toBe('B');
    expect(single(document, ns.pdfuaid, 'part')).toBe('1');
    expect(texts(document, ns.pdfaSchema, 'namespaceURI')).toEqual([ns.pdfuaid]);
    expect(texts(document, ns.pdfaSchema, 'prefix')).toEqual(['pdfuaid']);
    expect(texts(document, ns.pdfaProperty, 'name')).toEqual(['part']);
    expect(texts(document, ns.pdfaProperty, 'valueType')).toEqual(['Integer']);
    expect(texts(document, ns.pdfaProperty, 'category')).toEqual(['internal']);
  });

  it('writes pdfuaid without an extension schema where there is no PDF/A', () => {
    const document = parse(xmpPacket({ pdfua: 1, title: 'T', lang: 'en' }));
    expect(single(document, ns.pdfuaid, 'part')).toBe('1');
    expect(texts(document, ns.pdfaExtension, 'schemas')).toEqual([]);
  });

  it('writes an extension schema: its description in pdfaExtension:schemas and its values in its namespace', () => {
    const document = parse(xmpPacket({ pdfa: { part: 3, conformance: 'B' }, pdfua: 1, extensions: [facturX] }));
    expect(texts(document, facturX.namespace, 'DocumentType')).toEqual(['INVOICE']);
    expect(texts(document, facturX.namespace, 'ConformanceLevel')).toEqual(['EN 16931']);
    const schemas = document.getElementsByTagNameNS(ns.pdfaExtension, 'schemas')[0]!;
    const bag = schemas.getElementsByTagNameNS(ns.rdf, 'Bag')[0]!;
    const entries = Array.from(bag.childNodes).filter((node): node is Element => node.nodeType === 1);
    expect(entries.map((entry) => entry.getAttributeNS(ns.rdf, 'parseType'))).toEqual(['Resource', 'Resource']);
    expect(texts(document, ns.pdfaSchema, 'namespaceURI')).toEqual([ns.pdfuaid, facturX.namespace]);
    expect(texts(document, ns.pdfaSchema, 'schema')).toEqual([
      'PDF/UA Universal Accessibility Schema',
      'Factur-X PDFA Extension Schema',
    ]);
    expect(texts(document, ns.pdfaProperty, 'name')).toEqual(['part', 'DocumentType', 'ConformanceLevel']);
    expect(texts(document, ns.pdfaProperty, 'category')).toEqual(['internal', 'external', 'external']);
  });
});
