/** The render-request schema: defaults, string forms, and every validation error at once. */
import { describe, expect, it } from 'vitest';
import { exitCodeFor, PdfRenderError, type FieldErrors } from '../src/errors.js';
import { asyncRenderRequestSchema, parseRenderRequest, parseWith } from '../src/request.js';

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
      headerHtmlContent: null,
      footerHtmlContent: null,
      landscape: false,
      paperWidth: 8.5,
      paperHeight: 11,
      marginTop: 0.39,
      marginLeft: 0.39,
      marginRight: 0.39,
      marginBottom: 0.39,
      printBackground: false,
      scale: 1,
      tagged: false,
      outline: false,
    });
  });

  it('treats null and empty header and footer as none', () => {
    const request = parseRenderRequest({ htmlContent: 'x', headerHtmlContent: '', footerHtmlContent: null });
    expect(request.headerHtmlContent).toBeNull();
    expect(request.footerHtmlContent).toBeNull();
  });

  it('ignores unknown fields, as API clients may send more', () => {
    expect(parseRenderRequest({ htmlContent: 'x', somethingElse: 1 })).not.toHaveProperty('somethingElse');
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
      paperHeight: '297',
      marginTop: '1cm',
    });
    expect(request).toMatchObject({ landscape: true, printBackground: true, tagged: false, outline: true, scale: 1.5, paperHeight: 297 / 1 });
    expect(request.paperWidth).toBeCloseTo(210 / 25.4, 10);
    expect(request.marginTop).toBeCloseTo(1 / 2.54, 10);
  });

  it('keeps real booleans and numbers', () => {
    expect(parseRenderRequest({ htmlContent: 'x', landscape: true, scale: 0.5, paperWidth: 4 })).toMatchObject({ landscape: true, scale: 0.5, paperWidth: 4 });
  });
});

describe('scale', () => {
  it.each([0.1, 2, '0.1', '2', 1.25])('accepts %s', (scale) => {
    expect(parseRenderRequest({ htmlContent: 'x', scale }).scale).toBe(Number(scale));
  });

  it.each([
    [0.09, 'must be between 0.1 and 2 (got 0.09)'],
    [2.01, 'must be between 0.1 and 2 (got 2.01)'],
    [5, 'must be between 0.1 and 2 (got 5)'],
    ['abc', 'must be a number (got "abc")'],
    ['', 'must be a number (got "")'],
    [true, 'must be a number'],
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

  it('checks margins against the page as printed in landscape', () => {
    // 10in across fits an 11in-wide landscape Letter page, but not an 8.5in portrait one.
    expect(parseRenderRequest({ htmlContent: 'x', landscape: true, marginLeft: '5in', marginRight: '5in' }).landscape).toBe(true);
    expect(errorsOf({ htmlContent: 'x', marginLeft: '5in', marginRight: '5in' })).toHaveProperty('marginLeft');
    expect(errorsOf({ htmlContent: 'x', landscape: true, marginTop: '4.5in', marginBottom: '4in' }).marginTop).toEqual([
      'marginTop + marginBottom (8.5in) must be smaller than the page height (8.5in)',
    ]);
  });
});

describe('errors', () => {
  it('says htmlContent is required, or must be a non-empty string', () => {
    expect(errorsOf({})).toEqual({ htmlContent: ['is required'] });
    expect(errorsOf({ htmlContent: '' })).toEqual({ htmlContent: ['must not be empty'] });
    expect(errorsOf({ htmlContent: 42 })).toEqual({ htmlContent: ['must be a string of HTML'] });
    expect(errorsOf({ htmlContent: 'x', headerHtmlContent: 7 })).toEqual({ headerHtmlContent: ['must be a string of HTML'] });
  });

  it('reports every bad field at once', () => {
    const errors = errorsOf({
      paperWidth: '12 furlongs',
      paperHeight: '',
      marginTop: -1,
      marginLeft: '1in2',
      landscape: 'yes',
      printBackground: 1,
      scale: 'abc',
    });
    expect(Object.keys(errors).sort()).toEqual(['htmlContent', 'landscape', 'marginLeft', 'marginTop', 'paperHeight', 'paperWidth', 'printBackground', 'scale']);
    expect(errors.landscape).toEqual(['must be true or false (got "yes")']);
    expect(errors.printBackground).toEqual(['must be true or false']);
    expect(errors.paperWidth![0]).toContain('unknown unit "furlongs"');
    expect(errors.paperHeight).toEqual(['must not be empty']);
    expect(errors.marginTop).toEqual(['must not be negative']);
  });

  it.each([['a string'], [null], [[1, 2]], [42]])('reports a body that is not an object under "request": %j', (body) => {
    const errors = errorsOf(body);
    expect(Object.keys(errors)).toEqual(['request']);
    expect(errors.request![0]).toMatch(/^must be an object of request fields/);
  });

  it('carries a message that counts the bad fields', () => {
    expect(() => parseRenderRequest({ scale: 9 })).toThrow('invalid request: 2 fields failed validation');
  });

  it('maps error codes to CLI exit codes', () => {
    expect(exitCodeFor(new PdfRenderError('RENDER_PDF_FAILED', 'x'))).toBe(1);
    expect(exitCodeFor(new PdfRenderError('VALIDATION_FAILED', 'x'))).toBe(2);
    expect(exitCodeFor(new PdfRenderError('USAGE', 'x'))).toBe(2);
    expect(exitCodeFor(new PdfRenderError('BROWSER_NOT_FOUND', 'x'))).toBe(2);
    expect(exitCodeFor(new Error('unexpected'))).toBe(1);
  });
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
    expect(parseAsync({ htmlContent: 'x', identifier: 'facture-été 42' })).toMatchObject({ identifier: 'facture-été 42', priority: 0, paperWidth: 8.5 });
    expect(parseAsync({ htmlContent: 'x', identifier: 'a', priority: '-10' }).priority).toBe(-10);
    expect(parseAsync({ htmlContent: 'x', identifier: 'a'.repeat(200), priority: 10 }).priority).toBe(10);
  });

  it.each([
    [{ htmlContent: 'x' }, { identifier: ['is required'] }],
    [{ htmlContent: 'x', identifier: '' }, { identifier: ['must not be empty'] }],
    [{ htmlContent: 'x', identifier: 'a'.repeat(201) }, { identifier: ['must be at most 200 characters'] }],
    [{ htmlContent: 'x', identifier: 'line\nbreak' }, { identifier: ['must be printable characters (no control characters or line breaks)'] }],
    [{ htmlContent: 'x', identifier: 'a', priority: 11 }, { priority: ['must be between -10 and 10 (got 11)'] }],
    [{ htmlContent: 'x', identifier: 'a', priority: '1.5' }, { priority: ['must be a whole number (got 1.5)'] }],
    [{ htmlContent: 'x', identifier: 'a', marginLeft: '9in' }, { marginLeft: [expect.stringContaining('must be smaller than the page width')], marginRight: [expect.stringContaining('page width')] }],
  ])('rejects %j', (input, errors) => {
    expect(asyncErrors(input)).toEqual(errors);
  });
});
