/** The Factur-X request fields (request-factur-x.ts): profile names, file names, and what goes together. */
import { describe, expect, it } from 'vitest';
import { PdfRenderError, type FieldErrors } from '../src/errors.js';
import { parseAsyncRenderRequest, parseRenderRequest } from '../src/request.js';

const xml = '<rsm:CrossIndustryInvoice/>';

function errorsOf(parse: () => unknown): FieldErrors {
  try {
    parse();
  } catch (error) {
    expect((error as PdfRenderError).code).toBe('VALIDATION_FAILED');
    return (error as PdfRenderError).fieldErrors!;
  }
  throw new Error('expected the request to be invalid');
}

describe('facturX fields', () => {
  it.each([
    ['EN 16931', 'EN 16931'],
    ['en16931', 'EN 16931'],
    ['EN_16931', 'EN 16931'],
    ['basic-wl', 'BASIC WL'],
    ['BasicWL', 'BASIC WL'],
    ['minimum', 'MINIMUM'],
    ['XRechnung', 'XRECHNUNG'],
  ])('reads the profile %s as %s', (given, profile) => {
    const request = parseRenderRequest({ htmlContent: 'x', facturX: xml, facturXProfile: given });
    expect(request.facturXProfile).toBe(profile);
    expect(request.facturXFileName).toBeNull();
  });

  it('refuses an unknown profile or file name, listing the known ones', () => {
    expect(
      errorsOf(() =>
        parseRenderRequest({ htmlContent: 'x', facturX: xml, facturXProfile: 'COMFORT', facturXFileName: 'a.xml' }),
      ),
    ).toEqual({
      facturXProfile: ['must be one of MINIMUM, BASIC WL, BASIC, EN 16931, EXTENDED, XRECHNUNG (got "COMFORT")'],
      facturXFileName: ['must be one of factur-x.xml, zugferd-invoice.xml, xrechnung.xml (got "a.xml")'],
    });
  });

  it('asks for the profile with the XML, and the XML with a profile or file name, in sync and async bodies', () => {
    expect(errorsOf(() => parseRenderRequest({ htmlContent: 'x', facturX: xml }))).toEqual({
      facturXProfile: [
        "is required with facturX: one of MINIMUM, BASIC WL, BASIC, EN 16931, EXTENDED, XRECHNUNG, the profile the XML's guideline ID names",
      ],
    });
    expect(
      errorsOf(() =>
        parseAsyncRenderRequest({
          htmlContent: 'x',
          identifier: 'a',
          facturXProfile: 'EN 16931',
          facturXFileName: 'factur-x.xml',
        }),
      ),
    ).toEqual({
      facturXProfile: ['goes with facturX (the invoice XML), which was not given'],
      facturXFileName: ['goes with facturX (the invoice XML), which was not given'],
    });
  });

  it('is a PDF/A-3b: pdfa PDF/A-2b with it is refused, PDF/A-3b accepted', () => {
    expect(
      errorsOf(() => parseRenderRequest({ htmlContent: 'x', facturX: xml, facturXProfile: 'BASIC', pdfa: 'pdf/a-2b' })),
    ).toEqual({
      pdfa: [
        'cannot be PDF/A-2b with facturX: a Factur-X invoice is a PDF/A-3b, which may embed its XML (leave pdfa out, or ask for "PDF/A-3b")',
      ],
    });
    expect(parseRenderRequest({ htmlContent: 'x', facturX: xml, facturXProfile: 'BASIC', pdfa: 'PDF/A-3b' }).pdfa).toBe(
      'PDF/A-3b',
    );
  });

  it("takes a form's empty fields as not given", () => {
    const request = parseRenderRequest({ htmlContent: 'x', facturX: '', facturXProfile: '', facturXFileName: '' });
    expect([request.facturX, request.facturXProfile, request.facturXFileName]).toEqual([null, null, null]);
  });
});
