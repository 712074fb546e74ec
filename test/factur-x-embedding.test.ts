/** What a Factur-X invoice is embedded with (engine/document/factur-x.ts): the file, its relationship, and the XMP schema read back by a namespace-aware parser; and the bounds its check holds the XML to. */
import { DOMParser, type Element } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import { checkFacturX, facturXEmbedding } from '../src/engine/document/factur-x.js';
import type { PdfRenderError } from '../src/errors.js';
import { maxFacturXBytes, maxFacturXTags } from '../src/request-factur-x.js';
import { xmpPacket } from '../src/engine/document/xmp.js';

const xml =
  '<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100">é</rsm:CrossIndustryInvoice>';

/** The text of every element `name` in `namespace` of an XMP packet. */
function read(packet: string, namespace: string, name: string): string[] {
  const document = new DOMParser().parseFromString(packet, 'text/xml');
  return Array.from(document.getElementsByTagNameNS(namespace, name) as unknown as ArrayLike<Element>).map(
    (element) => element.textContent ?? '',
  );
}

describe('facturXEmbedding', () => {
  it('embeds the XML as UTF-8 text/xml, Alternative from BASIC up and Data below, under the name the profile gives', () => {
    const embedding = (
      facturXProfile: Parameters<typeof facturXEmbedding>[0]['facturXProfile'],
      facturXFileName = null,
    ) => facturXEmbedding({ facturX: xml, facturXProfile, facturXFileName })!.file;
    expect(embedding('EN 16931')).toMatchObject({
      name: 'factur-x.xml',
      mediaType: 'text/xml',
      relationship: 'Alternative',
    });
    expect(Buffer.from(embedding('EN 16931').bytes).equals(Buffer.from(xml, 'utf8'))).toBe(true);
    expect(
      ['MINIMUM', 'BASIC WL', 'BASIC', 'EXTENDED', 'XRECHNUNG'].map(
        (profile) => embedding(profile as 'BASIC').relationship,
      ),
    ).toEqual(['Data', 'Data', 'Alternative', 'Alternative', 'Alternative']);
    expect(embedding('XRECHNUNG').name).toBe('xrechnung.xml');
    expect(facturXEmbedding({ facturX: null, facturXProfile: null, facturXFileName: null })).toBeNull();
  });

  it('states the Factur-X schema in the XMP, described in pdfaExtension:schemas', () => {
    const { extension } = facturXEmbedding({ facturX: xml, facturXProfile: 'BASIC WL', facturXFileName: null })!;
    const packet = xmpPacket({ pdfa: { part: 3, conformance: 'B' }, extensions: [extension] });
    const fx = 'urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#';
    expect(
      ['DocumentType', 'DocumentFileName', 'Version', 'ConformanceLevel'].map((name) => read(packet, fx, name)),
    ).toEqual([['INVOICE'], ['factur-x.xml'], ['1.0'], ['BASIC WL']]);
    expect(read(packet, 'http://www.aiim.org/pdfa/ns/schema#', 'namespaceURI')).toEqual([fx]);
    expect(read(packet, 'http://www.aiim.org/pdfa/ns/schema#', 'prefix')).toEqual(['fx']);
    expect(read(packet, 'http://www.aiim.org/pdfa/ns/property#', 'name')).toEqual([
      'DocumentFileName',
      'DocumentType',
      'Version',
      'ConformanceLevel',
    ]);
  });

  it("writes ZUGFeRD 2.0's schema for its file name, so the name and the declaration belong together", () => {
    const { extension } = facturXEmbedding({
      facturX: xml,
      facturXProfile: 'EN 16931',
      facturXFileName: 'zugferd-invoice.xml',
    })!;
    expect(extension).toMatchObject({ namespace: 'urn:zugferd:pdfa:CrossIndustryDocument:invoice:2p0#', prefix: 'zf' });
    expect(extension.properties.map(({ name, value }) => `${name}=${value}`)).toEqual([
      'DocumentFileName=zugferd-invoice.xml',
      'DocumentType=INVOICE',
      'Version=2p0',
      'ConformanceLevel=EN 16931',
    ]);
  });
});

describe('checkFacturX: the bounds, before the XML is parsed', () => {
  const refusal = (facturX: string) => {
    try {
      checkFacturX({ facturX, facturXProfile: 'EN 16931', facturXFileName: null });
    } catch (error) {
      return error as PdfRenderError;
    }
    return undefined;
  };

  it('refuses more than maxFacturXBytes (413)', () => {
    expect(refusal(`<a>${'A'.repeat(maxFacturXBytes)}</a>`)).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      message: expect.stringContaining('more than the limit of 5 MB'),
    });
  });

  it('refuses more than maxFacturXTags tags (413), which would hold up the event loop, and takes as many', () => {
    expect(refusal(`<a>${'<b/>'.repeat(maxFacturXTags)}</a>`)).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      message: `facturX holds more than ${maxFacturXTags} tags, the limit of what is parsed at once (about 1 300 invoice lines)`,
    });
    // One tag fewer is parsed, and then refused only for what it is: not CII.
    expect(refusal(`<a>${'<b/>'.repeat(maxFacturXTags - 2)}</a>`)).toMatchObject({
      code: 'VALIDATION_FAILED',
      fieldErrors: { facturX: [expect.stringContaining('must be a UN/CEFACT CII invoice')] },
    });
  });
});
