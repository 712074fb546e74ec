/** The Factur-X invoice XML checks (engine/document/cii-invoice.ts): well formed, CII, of the profile asked for. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ciiInvoiceProblem, profileOfGuidelineId } from '../src/engine/document/cii-invoice.js';

const fixture = readFileSync(new URL('../fixtures/invoice/factur-x.xml', import.meta.url), 'utf8');
const minimum = readFileSync(new URL('../fixtures/invoice/factur-x-minimum.xml', import.meta.url), 'utf8');

const cii = 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100';
const ram = 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100';
/** A CII invoice with this guideline ID, with the namespaces under prefixes of its own. */
const invoiceWith = (id: string, prefixes = { rsm: 'rsm', ram: 'ram' }) =>
  `<?xml version="1.0" encoding="UTF-8"?>
<${prefixes.rsm}:CrossIndustryInvoice xmlns:${prefixes.rsm}="${cii}" xmlns:${prefixes.ram}="${ram}">
  <${prefixes.rsm}:ExchangedDocumentContext>
    <${prefixes.ram}:GuidelineSpecifiedDocumentContextParameter>
      <${prefixes.ram}:ID>${id}</${prefixes.ram}:ID>
    </${prefixes.ram}:GuidelineSpecifiedDocumentContextParameter>
  </${prefixes.rsm}:ExchangedDocumentContext>
</${prefixes.rsm}:CrossIndustryInvoice>`;

describe('profiles', () => {
  it('passes the fixture invoices as the profiles their guideline IDs name', () => {
    expect(ciiInvoiceProblem(fixture, 'EN 16931')).toBeNull();
    expect(ciiInvoiceProblem(minimum, 'MINIMUM')).toBeNull();
  });

  it.each([
    ['urn:factur-x.eu:1p0:minimum', 'MINIMUM'],
    ['urn:factur-x.eu:1p0:basicwl', 'BASIC WL'],
    ['urn:cen.eu:en16931:2017#compliant#urn:factur-x.eu:1p0:basic', 'BASIC'],
    ['urn:cen.eu:en16931:2017', 'EN 16931'],
    ['urn:cen.eu:en16931:2017#conformant#urn:factur-x.eu:1p0:extended', 'EXTENDED'],
    ['urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0', 'XRECHNUNG'],
    ['urn:cen.eu:en16931:2017#compliant#urn:xoev-de:kosit:standard:xrechnung_2.3', 'XRECHNUNG'],
    [
      'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0#conformant#urn:xeinkauf.de:kosit:extension:xrechnung_3.0',
      'XRECHNUNG',
    ],
  ] as const)('reads %s as %s', (id, profile) => {
    expect(profileOfGuidelineId(id)).toBe(profile);
    expect(ciiInvoiceProblem(invoiceWith(id), profile)).toBeNull();
  });

  it('resolves namespaces rather than matching prefixes', () => {
    const other = invoiceWith('urn:cen.eu:en16931:2017', { rsm: 'inv', ram: 'a' });
    expect(ciiInvoiceProblem(other, 'EN 16931')).toBeNull();
    // The right local names in the wrong namespace are not the guideline ID.
    const wrong = invoiceWith('urn:cen.eu:en16931:2017').replace(`xmlns:ram="${ram}"`, 'xmlns:ram="urn:example:other"');
    expect(ciiInvoiceProblem(wrong, 'EN 16931')).toEqual({
      field: 'facturX',
      message: expect.stringContaining('has no guideline ID (rsm:ExchangedDocumentContext'),
    });
  });

  it('names the requested and the found profile when they differ', () => {
    expect(ciiInvoiceProblem(minimum, 'EN 16931')).toEqual({
      field: 'facturXProfile',
      message: expect.stringMatching(/^is EN 16931, but .* is "urn:factur-x\.eu:1p0:minimum", the MINIMUM profile's/),
    });
    // XRechnung's CIUS is EN 16931 data, but ZUGFeRD gives it a profile (and XMP level) of its own.
    const xrechnung = invoiceWith('urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0');
    expect(ciiInvoiceProblem(xrechnung, 'EN 16931')?.message).toContain("the XRECHNUNG profile's");
    expect(ciiInvoiceProblem(fixture, 'XRECHNUNG')?.message).toMatch(/^is XRECHNUNG, .*the EN 16931 profile's/);
    // ZUGFeRD 2.0's IDs are no Factur-X 1.0 profile's.
    expect(
      ciiInvoiceProblem(invoiceWith('urn:cen.eu:en16931:2017#compliant#urn:zugferd.de:2p0:basic'), 'BASIC'),
    ).toEqual({
      field: 'facturXProfile',
      message: expect.stringContaining(
        'no Factur-X profile (BASIC is "urn:cen.eu:en16931:2017#compliant#urn:factur-x.eu:1p0:basic")',
      ),
    });
  });
});

describe('refusals', () => {
  it('names the line of a well-formedness error', () => {
    const broken = fixture.replace('<ram:Name>Acme Ltd</ram:Name>', '<ram:Name>Acme Ltd</ram:Nam>');
    const line = fixture.slice(0, fixture.indexOf('Acme Ltd')).split('\n').length;
    expect(ciiInvoiceProblem(broken, 'EN 16931')).toEqual({
      field: 'facturX',
      message: expect.stringMatching(new RegExp(`^is not well-formed XML \\(line ${line}\\): .*mismatch`)),
    });
    expect(ciiInvoiceProblem('an invoice', 'EN 16931')?.message).toMatch(/^is not well-formed XML/);
    expect(ciiInvoiceProblem('<a x=1/>', 'EN 16931')?.message).toMatch(/^is not well-formed XML/);
  });

  it('refuses a UBL invoice, naming its root and namespace', () => {
    const ubl =
      '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"><cbc:ID xmlns:cbc="urn:x">1</cbc:ID></Invoice>';
    expect(ciiInvoiceProblem(ubl, 'EN 16931')).toEqual({
      field: 'facturX',
      message: `must be a UN/CEFACT CII invoice: root element CrossIndustryInvoice in namespace ${cii}; got Invoice in namespace urn:oasis:names:specification:ubl:schema:xsd:Invoice-2 (UBL, which Factur-X does not embed)`,
    });
    expect(ciiInvoiceProblem('<CrossIndustryInvoice/>', 'EN 16931')?.message).toContain(
      'got CrossIndustryInvoice in no namespace',
    );
  });

  it('refuses a DOCTYPE before parsing, so no entity is expanded', () => {
    const laughs = fixture.replace(
      '<rsm:CrossIndustryInvoice',
      '<!DOCTYPE rsm:CrossIndustryInvoice [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>\n<rsm:CrossIndustryInvoice',
    );
    const line = laughs.slice(0, laughs.indexOf('<!DOCTYPE')).split('\n').length;
    expect(ciiInvoiceProblem(laughs, 'EN 16931')).toEqual({
      field: 'facturX',
      message: `must not have a DOCTYPE (line ${line}): CII invoices have none`,
    });
  });

  it('reads "<!DOCTYPE" in a comment for what it is, not a DOCTYPE', () => {
    const mention = fixture.replace(
      '<rsm:ExchangedDocumentContext>',
      '<!-- <!DOCTYPE is refused in the prolog only --><rsm:ExchangedDocumentContext>',
    );
    expect(ciiInvoiceProblem(mention, 'EN 16931')).toBeNull();
    expect(ciiInvoiceProblem(`<!-- a note -->\n<!DOCTYPE x>\n${fixture}`, 'EN 16931')).toEqual({
      field: 'facturX',
      message: 'must not have a DOCTYPE (line 2): CII invoices have none',
    });
  });

  it('refuses an encoding other than UTF-8, which the embedded bytes would contradict', () => {
    const latin = fixture.replace('encoding="UTF-8"', 'encoding="ISO-8859-1"');
    expect(ciiInvoiceProblem(latin, 'EN 16931')?.message).toMatch(/^declares encoding="ISO-8859-1"/);
    expect(ciiInvoiceProblem(fixture.replace('encoding="UTF-8"', "encoding='utf8'"), 'EN 16931')).toBeNull();
    // A byte-order mark before the declaration is UTF-8's own, and allowed.
    expect(ciiInvoiceProblem(`\uFEFF${fixture}`, 'EN 16931')).toBeNull();
  });
});
