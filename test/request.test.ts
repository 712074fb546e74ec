/** The render-request schema: defaults, string forms, and every validation error at once. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { exitCodeFor, PdfRenderError, type ErrorCode, type FieldErrors } from '../src/errors.js';
import {
  asyncRenderRequestSchema,
  fieldErrorsOf,
  parseRenderRequest,
  parseWith,
  renderRequestSchema,
} from '../src/request.js';

/** The field errors of an invalid request (fails the test if it is valid). */
function errorsOf(input: unknown): FieldErrors {
  try {
    parseRenderRequest(input);
  } catch (error) {
    expect(error).toBeInstanceOf(PdfRenderError);
    expect((error as PdfRenderError).code).toBe('VALIDATION_FAILED');
    return (error as PdfRenderError).fieldErrors!;
  }
  throw new Error('expected the request to be invalid');
}

describe('defaults', () => {
  it('fills in every default, lengths in inches', () => {
    expect(parseRenderRequest({ htmlContent: '<p>x</p>' })).toEqual({
      htmlContent: '<p>x</p>',
      url: null,
      headerHtmlContent: null,
      footerHtmlContent: null,
      landscape: false,
      format: null,
      paperWidth: 8.5,
      paperHeight: 11,
      marginTop: 0.39,
      marginLeft: 0.39,
      marginRight: 0.39,
      marginBottom: 0.39,
      printBackground: false,
      scale: 1,
      tagged: true,
      outline: true,
      lang: null,
      firstPageHeaderHtmlContent: null,
      firstPageFooterHtmlContent: null,
      waitForSelector: null,
      waitForExpression: null,
      waitDelay: null,
      waitForNetworkIdle: false,
      preferCssPageSize: false,
      singlePage: false,
      emulatedMediaType: 'print',
      userAgent: null,
      cookies: null,
      extraHttpHeaders: null,
      extraHttpHeadersOrigins: null,
      failOn: null,
      emulatedMediaFeatures: null,
      pageRanges: null,
      assets: null,
      metadata: null,
      pdfa: null,
      attachments: null,
      facturX: null,
      facturXProfile: null,
      facturXFileName: null,
    });
  });

  it('treats null and empty header and footer as none', () => {
    const request = parseRenderRequest({ htmlContent: 'x', headerHtmlContent: '', footerHtmlContent: null });
    expect(request.headerHtmlContent).toBeNull();
    expect(request.footerHtmlContent).toBeNull();
  });

  it('keeps an empty first-page template apart from none: empty leaves page 1 without one, none uses the running one', () => {
    const request = parseRenderRequest({
      htmlContent: 'x',
      firstPageHeaderHtmlContent: '',
      firstPageFooterHtmlContent: null,
    });
    expect(request.firstPageHeaderHtmlContent).toBe('');
    expect(request.firstPageFooterHtmlContent).toBeNull();
  });

  it('reads the new fields in their string forms, as forms and flags send them, and parses a stored request again to the same', () => {
    const input = {
      htmlContent: 'x',
      waitDelay: '2s',
      pageRanges: ' 1-3, 5 ,7- ',
      metadata: '{"title":"T","keywords":"k","creationDate":"2026-11-23"}',
      emulatedMediaType: 'screen',
    };
    const request = parseRenderRequest(input);
    expect(request).toMatchObject({
      waitDelay: 2000,
      pageRanges: ' 1-3, 5 ,7- ',
      emulatedMediaType: 'screen',
      metadata: { title: 'T', keywords: ['k'], creationDate: new Date('2026-11-23') },
    });
    // A date and time without an offset is UTC, as a bare date is.
    expect(
      parseRenderRequest({ htmlContent: 'x', metadata: { creationDate: '2026-11-23T10:00' } }).metadata!.creationDate,
    ).toEqual(new Date('2026-11-23T10:00:00Z'));
    // The async queue stores the parsed request as JSON and parses it again when the job runs.
    expect(parseRenderRequest(JSON.parse(JSON.stringify(request)))).toEqual(request);
  });

  it.each([
    [{ pageRanges: '0' }, 'pageRanges', 'numbered from 1'],
    [{ pageRanges: '1-2-3' }, 'pageRanges', 'such as "1-3,5"'],
    [{ pageRanges: Array.from({ length: 101 }, () => '1').join(',') }, 'pageRanges', 'at most 100 ranges'],
    [{ waitDelay: 0 }, 'waitDelay', 'positive amount'],
    [{ waitForExpression: 'while (' }, 'waitForExpression', 'JavaScript expression'],
    [{ waitForSelector: 'x'.repeat(10_001) }, 'waitForSelector', 'at most 10000 characters'],
    [{ metadata: { keywords: [1] } }, 'metadata.keywords', 'a list of at most 100 strings'],
    [{ metadata: ['title'] }, 'metadata', 'must be an object'],
    [{ emulatedMediaType: 'Screen' }, 'emulatedMediaType', 'must be "print" or "screen"'],
  ])('refuses %j, naming %s', (fields, field, message) => {
    expect(() => parseRenderRequest({ htmlContent: 'x', ...fields })).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        fieldErrors: { [field]: [expect.stringContaining(message)] },
      }),
    );
  });

  it('refuses unknown fields, naming each (field-errors.test.ts has the suggestions)', () => {
    expect(() => parseRenderRequest({ htmlContent: 'x', somethingElse: 1 })).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        fieldErrors: { somethingElse: ['is not a request field'] },
      }),
    );
    expect(parseRenderRequest({ htmlContent: 'x', somethingElse: 1 }, { unknownFields: 'warn' })).not.toHaveProperty(
      'somethingElse',
    );
  });
});

describe('string forms, as flags and form fields send them', () => {
  it('parses booleans, numbers and lengths from strings', () => {
    const request = parseRenderRequest({
      htmlContent: 'x',
      landscape: 'true',
      printBackground: ' TRUE ',
      tagged: 'false',
      outline: 'True',
      scale: '1.5',
      paperWidth: '210mm',
      paperHeight: '97',
      marginTop: '1cm',
    });
    expect(request).toMatchObject({
      landscape: true,
      printBackground: true,
      tagged: false,
      outline: true,
      scale: 1.5,
      paperHeight: 97,
    });
    expect(request.paperWidth).toBeCloseTo(210 / 25.4, 10);
    expect(request.marginTop).toBeCloseTo(1 / 2.54, 10);
  });

  it.each([
    ['true', true],
    ['false', false],
    ['TRUE', true],
    ['False', false],
    [' false ', false],
    [true, true],
    [false, false],
    // As form encoders send them: PHP's 1/0, an HTML checkbox's "on", and yes/no.
    ['1', true],
    ['0', false],
    [' 1 ', true],
    ['on', true],
    ['ON', true],
    ['off', false],
    ['Yes', true],
    ['YES', true],
    ['no', false],
    [1, true],
    [0, false],
    // An empty value is a field left unset: its default.
    ['', false],
    ['   ', false],
  ])('reads the boolean %j as %s', (value, expected) => {
    const request = parseRenderRequest({
      htmlContent: 'x',
      landscape: value,
      printBackground: value,
      tagged: value,
      outline: value,
    });
    // An empty value is the field's default: true for tagged and outline (issue 30).
    const defaulted = typeof value === 'string' && value.trim() === '' ? true : expected;
    expect(request).toMatchObject({
      landscape: expected,
      printBackground: expected,
      tagged: defaulted,
      outline: defaulted,
    });
  });

  it.each([
    ['210mm', 210 / 25.4],
    ['8.5', 8.5],
    ['612pt', 8.5],
    ['21cm', 21 / 2.54],
    [' 5 in ', 5],
  ])('reads the length %j in inches, for every length field', (value, expected) => {
    const request = parseRenderRequest({
      htmlContent: 'x',
      paperWidth: value,
      paperHeight: value,
      marginTop: '0',
      marginBottom: '0',
      marginLeft: '0',
      marginRight: '0',
    });
    expect(request.paperWidth).toBeCloseTo(expected, 10);
    expect(request.paperHeight).toBeCloseTo(expected, 10);
    const margins = parseRenderRequest({
      htmlContent: 'x',
      paperWidth: '100in',
      paperHeight: '100in',
      marginTop: value,
      marginBottom: value,
      marginLeft: value,
      marginRight: value,
    });
    for (const field of ['marginTop', 'marginBottom', 'marginLeft', 'marginRight'] as const)
      expect(margins[field]).toBeCloseTo(expected, 10);
  });

  it('keeps real booleans and numbers', () => {
    expect(parseRenderRequest({ htmlContent: 'x', landscape: true, scale: 0.5, paperWidth: 4 })).toMatchObject({
      landscape: true,
      scale: 0.5,
      paperWidth: 4,
    });
  });
});

describe('scale', () => {
  // The bounds are inclusive: Chromium's printToPDF takes 0.1 and 2 themselves.
  it.each([0.1, 2, '0.1', '2', ' 2 ', 1.25])('accepts %j', (scale) => {
    expect(parseRenderRequest({ htmlContent: 'x', scale }).scale).toBe(Number(scale));
  });

  it.each([
    [0.09, 'must be between 0.1 and 2 (got 0.09)'],
    [2.01, 'must be between 0.1 and 2 (got 2.01)'],
    [5, 'must be between 0.1 and 2 (got 5)'],
    ['abc', 'must be a number (got "abc")'],
    ['', 'must be a number (got "")'],
    [true, 'must be a number'],
    [null, 'must be a number'],
    ['-1', 'must be between 0.1 and 2 (got -1)'],
    [0, 'must be between 0.1 and 2 (got 0)'],
  ])('rejects %j', (scale, message) => {
    expect(errorsOf({ htmlContent: 'x', scale })).toEqual({ scale: [message] });
  });
});

describe('paper and margins', () => {
  it('rejects a zero paper size', () => {
    expect(errorsOf({ htmlContent: 'x', paperWidth: 0, paperHeight: '0mm' })).toEqual({
      paperWidth: ['must be greater than zero'],
      paperHeight: ['must be greater than zero'],
    });
  });

  it.each([
    [{ paperWidth: '-1in' }, 'paperWidth', /must not be negative/],
    [{ paperHeight: null }, 'paperHeight', /must be a number or a string such as "210mm"/],
    [{ marginTop: 'wide' }, 'marginTop', /"wide" is not a length/],
    [{ marginBottom: '2 furlongs' }, 'marginBottom', /unknown unit "furlongs"/],
  ])('reports a bad length under its own field: %j', (fields, field, message) => {
    const errors = errorsOf({ htmlContent: 'x', ...fields });
    expect(Object.keys(errors)).toEqual([field]);
    expect(errors[field]).toEqual([expect.stringMatching(message)]);
  });

  it('bounds the paper at 200 in a side, naming the field, and takes the bound itself', () => {
    expect(errorsOf({ htmlContent: 'x', paperWidth: 1e26, paperHeight: '201in' })).toEqual({
      paperWidth: [
        expect.stringMatching(/^must be at most 200in \(14400pt, the largest page PDF readers open\) \(got /),
      ],
      paperHeight: ['must be at most 200in (14400pt, the largest page PDF readers open) (got 201in)'],
    });
    expect(errorsOf({ htmlContent: 'x', paperWidth: '5081mm' })).toEqual({
      paperWidth: [expect.stringMatching(/at most 200in/)],
    });
    expect(parseRenderRequest({ htmlContent: 'x', paperWidth: '200in', paperHeight: '14400pt' })).toMatchObject({
      paperWidth: 200,
      paperHeight: 200,
    });
  });

  it('accepts zero margins and margins just inside the page', () => {
    expect(parseRenderRequest({ htmlContent: 'x', marginLeft: 0, marginRight: 0 }).marginLeft).toBe(0);
    expect(parseRenderRequest({ htmlContent: 'x', marginLeft: '4in', marginRight: '4.49in' }).marginRight).toBe(4.49);
  });

  it('rejects left and right margins that reach the page width, on both fields', () => {
    const errors = errorsOf({ htmlContent: 'x', marginLeft: '4in', marginRight: '4.5in' });
    const message = 'marginLeft + marginRight (8.5in) must be smaller than the page width (8.5in)';
    expect(errors).toEqual({ marginLeft: [message], marginRight: [message] });
  });

  it('rejects top and bottom margins beyond the page height', () => {
    const errors = errorsOf({ htmlContent: 'x', marginTop: '6in', marginBottom: '6in' });
    expect(errors.marginTop).toEqual(['marginTop + marginBottom (12in) must be smaller than the page height (11in)']);
    expect(errors.marginBottom).toEqual(errors.marginTop);
  });

  it('measures margins against a custom paper size, in inches, in the message', () => {
    // 100mm is 3.937in; two 2in margins do not fit across it.
    const errors = errorsOf({ htmlContent: 'x', paperWidth: '100mm', marginLeft: '2in', marginRight: '2in' });
    const message = 'marginLeft + marginRight (4in) must be smaller than the page width (3.937in)';
    expect(errors).toEqual({ marginLeft: [message], marginRight: [message] });
  });

  it('checks margins against the page as printed in landscape', () => {
    // 10in across fits an 11in-wide landscape Letter page, but not an 8.5in portrait one.
    expect(
      parseRenderRequest({ htmlContent: 'x', landscape: true, marginLeft: '5in', marginRight: '5in' }).landscape,
    ).toBe(true);
    expect(errorsOf({ htmlContent: 'x', marginLeft: '5in', marginRight: '5in' })).toHaveProperty('marginLeft');
    expect(errorsOf({ htmlContent: 'x', landscape: true, marginTop: '4.5in', marginBottom: '4in' }).marginTop).toEqual([
      'marginTop + marginBottom (8.5in) must be smaller than the page height (8.5in)',
    ]);
  });

  it('names the landscape page width (the paper height) when left and right reach it', () => {
    const message = 'marginLeft + marginRight (11in) must be smaller than the page width (11in)';
    expect(errorsOf({ htmlContent: 'x', landscape: 'true', marginLeft: '5.5in', marginRight: '5.5in' })).toEqual({
      marginLeft: [message],
      marginRight: [message],
    });
    expect(
      parseRenderRequest({ htmlContent: 'x', landscape: true, marginLeft: '5.5in', marginRight: '5.49in' }).marginRight,
    ).toBe(5.49);
    // In portrait, 8.4in down fits the 11in height; in landscape the height is 8.5in and 8.6in does not fit.
    expect(parseRenderRequest({ htmlContent: 'x', marginTop: '4.3in', marginBottom: '4.3in' }).marginTop).toBe(4.3);
    expect(errorsOf({ htmlContent: 'x', landscape: true, marginTop: '4.3in', marginBottom: '4.3in' })).toEqual({
      marginTop: ['marginTop + marginBottom (8.6in) must be smaller than the page height (8.5in)'],
      marginBottom: ['marginTop + marginBottom (8.6in) must be smaller than the page height (8.5in)'],
    });
  });

  it('reports both directions when the margins fill the page both ways', () => {
    const errors = errorsOf({ htmlContent: 'x', marginTop: '11in', marginLeft: '8.5in' });
    expect(Object.keys(errors).sort()).toEqual(['marginBottom', 'marginLeft', 'marginRight', 'marginTop']);
    expect(errors.marginTop![0]).toContain('page height (11in)');
    expect(errors.marginLeft![0]).toContain('page width (8.5in)');
  });
});

describe('errors', () => {
  it('says htmlContent is required, or must be a non-empty string', () => {
    expect(errorsOf({})).toEqual({ htmlContent: ['is required (or give url instead)'] });
    expect(errorsOf({ htmlContent: 'x', url: 'https://example.com/' })).toEqual({
      url: ['give either url or htmlContent, not both'],
    });
    expect(errorsOf({ url: 'ftp://example.com/' })).toEqual({
      url: ['must be an http or https URL (got "ftp://example.com/")'],
    });
    expect(errorsOf({ url: 'not a url' })).toEqual({ url: ['must be an http or https URL (got "not a url")'] });
    expect(errorsOf({ htmlContent: '' })).toEqual({ htmlContent: ['must not be empty'] });
    expect(errorsOf({ htmlContent: 42 })).toEqual({ htmlContent: ['must be a string of HTML'] });
    expect(errorsOf({ htmlContent: 'x', headerHtmlContent: 7 })).toEqual({
      headerHtmlContent: ['must be a string of HTML'],
    });
    // A template at the limit is fine; one character more is reported with its size.
    expect(
      parseRenderRequest({ htmlContent: 'x', footerHtmlContent: 'f'.repeat(512 * 1024) }).footerHtmlContent,
    ).toHaveLength(512 * 1024);
    expect(errorsOf({ htmlContent: 'x', headerHtmlContent: 'h'.repeat(512 * 1024 + 1) })).toEqual({
      headerHtmlContent: [`must be at most 524288 characters (512 KiB); got ${512 * 1024 + 1}`],
    });
  });

  it('reports every bad field at once', () => {
    const errors = errorsOf({
      paperWidth: '12 furlongs',
      paperHeight: '',
      marginTop: -1,
      marginLeft: '1in2',
      landscape: 'yess',
      printBackground: 2,
      scale: 'abc',
    });
    expect(Object.keys(errors).sort()).toEqual([
      'htmlContent',
      'landscape',
      'marginLeft',
      'marginTop',
      'paperHeight',
      'paperWidth',
      'printBackground',
      'scale',
    ]);
    expect(errors.landscape).toEqual(['must be true or false (or 1/0, on/off, yes/no); got "yess"']);
    expect(errors.printBackground).toEqual(['must be true or false (or 1/0, on/off, yes/no); got 2']);
    expect(errors.paperWidth![0]).toContain('unknown unit "furlongs"');
    expect(errors.paperHeight).toEqual(['must not be empty']);
    expect(errors.marginTop).toEqual(['must not be negative']);
  });

  it('throws one PdfRenderError carrying every field error', () => {
    let thrown: unknown;
    try {
      parseRenderRequest({ htmlContent: 42, scale: 9, landscape: 'maybe' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(PdfRenderError);
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown).toMatchObject({
      name: 'PdfRenderError',
      code: 'VALIDATION_FAILED',
      message: 'invalid request: 3 fields failed validation',
      fieldErrors: {
        htmlContent: ['must be a string of HTML'],
        scale: ['must be between 0.1 and 2 (got 9)'],
        landscape: ['must be true or false (or 1/0, on/off, yes/no); got "maybe"'],
      },
    });
  });

  it('says "1 field" for one bad field', () => {
    expect(() => parseRenderRequest({})).toThrow(/^invalid request: 1 field failed validation$/);
  });

  it('reports overflowing margins together with the other bad fields', () => {
    const errors = errorsOf({ htmlContent: 'x', scale: 9, marginTop: '6in', marginBottom: '6in' });
    expect(Object.keys(errors).sort()).toEqual(['marginBottom', 'marginTop', 'scale']);
  });

  it.each([['a string'], [null], [[1, 2]], [42], [undefined], [true]])(
    'reports a body that is not an object under "request": %j',
    (body) => {
      const errors = errorsOf(body);
      expect(Object.keys(errors)).toEqual(['request']);
      expect(errors.request![0]).toMatch(/^must be an object of request fields/);
    },
  );

  it('carries a message that counts the bad fields', () => {
    expect(() => parseRenderRequest({ scale: 9 })).toThrow('invalid request: 2 fields failed validation');
  });
});

describe('renderRequestSchema and fieldErrorsOf', () => {
  it('is the schema parseRenderRequest applies', () => {
    const input = { htmlContent: '<p>x</p>', paperWidth: '210mm', landscape: 'true' };
    const result = renderRequestSchema.safeParse(input);
    expect(result.success).toBe(true);
    expect(result.data).toEqual(parseRenderRequest(input));
  });

  it("turns the schema's issues into the same field errors parseRenderRequest throws", () => {
    const input = { paperWidth: 0, scale: 'abc' };
    const result = renderRequestSchema.safeParse(input);
    expect(result.success).toBe(false);
    expect(fieldErrorsOf(result.error!)).toEqual(errorsOf(input));
  });

  it('joins nested paths with dots, collects messages per field in order, and puts body problems under "request"', () => {
    const error = new z.ZodError([
      { code: 'custom', path: ['marginTop'], message: 'first', input: 1 },
      { code: 'custom', path: ['a', 'b', 0], message: 'nested', input: 1 },
      { code: 'custom', path: ['marginTop'], message: 'second', input: 1 },
      { code: 'custom', path: [], message: 'not an object', input: 1 },
    ]);
    expect(fieldErrorsOf(error)).toEqual({
      marginTop: ['first', 'second'],
      'a.b.0': ['nested'],
      request: ['must be an object of request fields (not an object)'],
    });
  });

  it('gives no field errors for no issues', () => {
    expect(fieldErrorsOf(new z.ZodError([]))).toEqual({});
  });
});

describe('exitCodeFor', () => {
  it.each<[ErrorCode, number]>([
    ['RENDER_PDF_FAILED', 1],
    ['VALIDATION_FAILED', 2],
    ['USAGE', 2],
    ['BROWSER_NOT_FOUND', 2],
  ])('maps %s to exit code %i', (code, exitCode) => {
    expect(exitCodeFor(new PdfRenderError(code, 'x'))).toBe(exitCode);
  });

  it('maps a real validation failure to 2', () => {
    let thrown: unknown;
    try {
      parseRenderRequest({});
    } catch (error) {
      thrown = error;
    }
    expect(exitCodeFor(thrown)).toBe(2);
  });

  // Anything that is not a PdfRenderError is unexpected: treat it as a failed render, not a usage error.
  it.each([[new Error('unexpected')], [new TypeError('bug')], ['a thrown string'], [undefined], [{ code: 'USAGE' }]])(
    'maps %j to 1',
    (error) => {
      expect(exitCodeFor(error)).toBe(1);
    },
  );
});

describe('async request', () => {
  const parseAsync = (input: unknown) => parseWith(asyncRenderRequestSchema, input);
  const asyncErrors = (input: unknown): FieldErrors => {
    try {
      parseAsync(input);
    } catch (error) {
      return (error as PdfRenderError).fieldErrors!;
    }
    throw new Error('expected the request to be invalid');
  };

  it('adds identifier (required) and priority (default 0) to the render fields', () => {
    expect(parseAsync({ htmlContent: 'x', identifier: 'facture-été 42' })).toMatchObject({
      identifier: 'facture-été 42',
      priority: 0,
      paperWidth: 8.5,
    });
    expect(parseAsync({ htmlContent: 'x', identifier: 'a', priority: '-10' }).priority).toBe(-10);
    expect(parseAsync({ htmlContent: 'x', identifier: 'a'.repeat(200), priority: 10 }).priority).toBe(10);
  });

  it.each([
    [{ htmlContent: 'x' }, { identifier: ['is required'] }],
    [{ htmlContent: 'x', identifier: '' }, { identifier: ['must not be empty'] }],
    [{ htmlContent: 'x', identifier: 'a'.repeat(201) }, { identifier: ['must be at most 200 characters'] }],
    [
      { htmlContent: 'x', identifier: 'line\nbreak' },
      { identifier: ['must be printable characters (no control characters or line breaks)'] },
    ],
    [{ htmlContent: 'x', identifier: 'a', priority: 11 }, { priority: ['must be between -10 and 10 (got 11)'] }],
    [{ htmlContent: 'x', identifier: 'a', priority: '1.5' }, { priority: ['must be a whole number (got 1.5)'] }],
    [
      { htmlContent: 'x', identifier: 'a', marginLeft: '9in' },
      {
        marginLeft: [expect.stringContaining('must be smaller than the page width')],
        marginRight: [expect.stringContaining('page width')],
      },
    ],
  ])('rejects %j', (input, errors) => {
    expect(asyncErrors(input)).toEqual(errors);
  });
});
