/** Length parsing: every unit, every accepted spelling, and every way to get it wrong. */
import { describe, expect, it } from 'vitest';
import { formatInches, parseLength, unitsPerInch } from '../src/length.js';

// PDF points (1/72 in), as page sizes are read from the PDF.
const inchesToPoints = (inches: number) => inches * unitsPerInch.pt;

/** The inches of a valid length (fails the test with the problem otherwise). */
function inches(value: unknown): number {
  const parsed = parseLength(value);
  if ('problem' in parsed) throw new Error(`expected a length, got the problem: ${parsed.problem}`);
  return parsed.inches;
}

/** The problem with an invalid length (fails the test if it parses). */
function problem(value: unknown): string {
  const parsed = parseLength(value);
  if (!('problem' in parsed)) throw new Error(`expected a problem, got ${parsed.inches}in`);
  return parsed.problem;
}

describe('parseLength: valid lengths', () => {
  it.each([
    ['1in', 1],
    ['72pt', 1],
    ['96px', 1],
    ['25.4mm', 1],
    ['2.54cm', 1],
    ['6pc', 1],
    ['8.5in', 8.5],
    ['210mm', 210 / 25.4],
    ['297mm', 297 / 25.4],
    ['612pt', 8.5],
    ['816px', 8.5],
    ['21cm', 21 / 2.54],
    ['51pc', 8.5],
    ['0.39in', 0.39],
    ['1pt', 1 / 72],
    ['1px', 1 / 96],
    ['1mm', 1 / 25.4],
    ['1cm', 1 / 2.54],
    ['1pc', 1 / 6],
  ])('%s is %f inches', (text, expected) => {
    expect(inches(text)).toBeCloseTo(expected, 10);
  });

  it('agrees with the unit table: 72pt = 96px = 1in = 25.4mm = 2.54cm = 6pc', () => {
    expect(unitsPerInch).toEqual({ in: 1, pt: 72, px: 96, mm: 25.4, cm: 2.54, pc: 6 });
    for (const [unit, perInch] of Object.entries(unitsPerInch)) expect(inches(`${perInch}${unit}`)).toBeCloseTo(1, 12);
  });

  it('takes a bare number or numeric string as inches', () => {
    expect(inches(8.5)).toBe(8.5);
    expect(inches('8.5')).toBe(8.5);
    expect(inches(11)).toBe(11);
    expect(inches('11')).toBe(11);
    expect(inches(0.39)).toBe(0.39);
  });

  it.each(['0', '0.0', '.0', 0, ...Object.keys(unitsPerInch).map((unit) => `0${unit}`)])('takes zero: %j', (value) => {
    expect(inches(value)).toBe(0);
  });

  it.each([
    ['.5in', 0.5],
    ['.5', 0.5],
    ['1.in', 1],
    ['1.', 1],
    ['.25', 0.25],
    ['0.5mm', 0.5 / 25.4],
    ['007in', 7],
  ])('accepts the number form %s', (text, expected) => {
    expect(inches(text)).toBeCloseTo(expected, 10);
  });

  it.each(['  8.5in', '8.5in  ', '\t8.5in\n', '8.5 in', '8.5\tin', ' 8.5  in ', ' 8.5 '])(
    'tolerates whitespace: %j',
    (text) => {
      expect(inches(text)).toBe(8.5);
    },
  );

  it.each([
    ['8.5IN', 8.5],
    ['8.5In', 8.5],
    ['612PT', 8.5],
    ['816PX', 8.5],
    ['215.9MM', 8.5],
    ['21.59CM', 8.5],
    ['51PC', 8.5],
    ['51Pc', 8.5],
  ])('ignores the case of the unit: %s', (text, expected) => {
    expect(inches(text)).toBeCloseTo(expected, 10);
  });
});

describe('parseLength: invalid lengths', () => {
  // Each message must quote the offending text or say what is wrong, so a user can fix it.
  it.each([
    ['12 furlongs', /unknown unit "furlongs" in "12 furlongs"/],
    ['1in2', /"1in2" is not a length/],
    ['', /must not be empty/],
    ['   ', /must not be empty/],
    ['\t\n', /must not be empty/],
    ['in', /"in" is not a length/],
    ['.', /"\." is not a length/],
    ['1e2', /"1e2" is not a length/],
    ['+1in', /"\+1in" is not a length/],
    ['1,5in', /"1,5in" is not a length/],
    ['1 2in', /"1 2in" is not a length/],
    ['1in in', /"1in in" is not a length/],
    ['1..5in', /"1\.\.5in" is not a length/],
    ['0x10', /"0x10" is not a length/],
    ['-1in', /must not be negative \(got "-1in"\)/],
    ['-0.5', /must not be negative \(got "-0.5"\)/],
    [' -0.5', /must not be negative/],
    ['abc', /"abc" is not a length/],
    ['NaN', /"NaN" is not a length/],
    ['Infinity', /"Infinity" is not a length/],
    ['-Infinity', /must not be negative/],
  ])('rejects the string %j', (text, message) => {
    expect(problem(text)).toMatch(message);
  });

  it.each([
    [-1, /must not be negative/],
    [-0.001, /must not be negative/],
    [Number.NaN, /must be a finite number/],
    [Number.POSITIVE_INFINITY, /must be a finite number/],
    [Number.NEGATIVE_INFINITY, /must be a finite number/],
  ])('rejects the number %f', (value, message) => {
    expect(problem(value)).toMatch(message);
  });

  it.each([
    [null, 'null'],
    [undefined, 'undefined'],
    [true, 'a boolean'],
    [false, 'a boolean'],
    [[1], 'an array'],
    [[], 'an array'],
    [{ value: 1 }, 'an object'],
    [{}, 'an object'],
  ])('rejects %j, naming its type', (value, type) => {
    const text = problem(value);
    expect(text).toContain('must be a number or a string such as "210mm"');
    expect(text).toContain(`not ${type}`);
  });

  it('suggests the accepted units in its messages', () => {
    expect(problem('3 cubits')).toContain('in, pt, px, mm, cm, pc');
    expect(problem('1in2')).toContain('in, pt, px, mm, cm, pc');
  });

  it('rejects a digit string too long to be a finite number', () => {
    expect(problem('9'.repeat(400))).toMatch(/finite/);
  });
});

describe('conversions', () => {
  it.each([
    [1, 72],
    [8.5, 612],
    [11, 792],
    [0, 0],
    [0.39, 28.08],
  ])('turns %f inches into %f points', (value, points) => {
    expect(inchesToPoints(value)).toBeCloseTo(points, 10);
  });

  it.each([
    ['210mm', 595.2756],
    ['297mm', 841.8898],
    ['1cm', 28.3465],
    ['96px', 72],
    ['1pc', 12],
  ])('round-trips %s through inches to points', (text, points) => {
    expect(inchesToPoints(inches(text))).toBeCloseTo(points, 4);
  });

  it.each([
    [8.5, '8.5in'],
    [11, '11in'],
    [0, '0in'],
    [0.39, '0.39in'],
    [210 / 25.4, '8.2677in'],
    [1 / 3, '0.3333in'],
    [2 / 3, '0.6667in'],
    // Rounded to four places, with trailing zeros dropped.
    [1.00001, '1in'],
    [0.00001, '0in'],
  ])('formats %f inches briefly for messages as %s', (value, text) => {
    expect(formatInches(value)).toBe(text);
  });
});
