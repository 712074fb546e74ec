/** Length parsing: every unit, every accepted spelling, and every way to get it wrong. */
import { describe, expect, it } from 'vitest';
import { formatInches, inchesToPoints, parseLength, unitsPerInch } from '../src/length.js';

function inches(value: unknown): number {
  const parsed = parseLength(value);
  if ('problem' in parsed) throw new Error(`expected a length, got the problem: ${parsed.problem}`);
  return parsed.inches;
}

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
  ])('%s is %f inches', (text, expected) => {
    expect(inches(text)).toBeCloseTo(expected, 10);
  });

  it('takes a bare number or numeric string as inches', () => {
    expect(inches(8.5)).toBe(8.5);
    expect(inches('8.5')).toBe(8.5);
    expect(inches(0)).toBe(0);
    expect(inches('0')).toBe(0);
    expect(inches('11')).toBe(11);
  });

  it.each([
    ['.5in', 0.5],
    ['1.in', 1],
    ['1.', 1],
    ['.25', 0.25],
    ['0mm', 0],
    ['007in', 7],
  ])('accepts the number form %s', (text, expected) => {
    expect(inches(text)).toBeCloseTo(expected, 10);
  });

  it.each(['  8.5in', '8.5in  ', '\t8.5in\n', '8.5 in', ' 8.5  in '])('tolerates whitespace: %j', (text) => {
    expect(inches(text)).toBe(8.5);
  });

  it.each(['8.5IN', '8.5In', '612PT', '816PX'])('ignores the case of the unit: %s', (text) => {
    expect(inches(text)).toBeCloseTo(8.5, 10);
  });

  it('agrees with the unit table: 72pt = 96px = 1in = 25.4mm = 2.54cm = 6pc', () => {
    expect(unitsPerInch).toEqual({ in: 1, pt: 72, px: 96, mm: 25.4, cm: 2.54, pc: 6 });
    for (const [unit, perInch] of Object.entries(unitsPerInch)) expect(inches(`${perInch}${unit}`)).toBeCloseTo(1, 12);
  });
});

describe('parseLength: invalid lengths', () => {
  it.each([
    ['12 furlongs', /unknown unit "furlongs" in "12 furlongs"/],
    ['1in2', /"1in2" is not a length/],
    ['', /must not be empty/],
    ['   ', /must not be empty/],
    ['in', /"in" is not a length/],
    ['1e2', /"1e2" is not a length/],
    ['+1in', /"\+1in" is not a length/],
    ['1,5in', /"1,5in" is not a length/],
    ['1 2in', /"1 2in" is not a length/],
    ['1in in', /"1in in" is not a length/],
    ['-1in', /must not be negative \(got "-1in"\)/],
    [' -0.5', /must not be negative/],
    ['abc', /"abc" is not a length/],
    ['NaN', /"NaN" is not a length/],
    ['Infinity', /"Infinity" is not a length/],
  ])('rejects the string %j', (text, message) => {
    expect(problem(text)).toMatch(message);
  });

  it.each([
    [-1, /must not be negative/],
    [-0.001, /must not be negative/],
    [Number.NaN, /finite number/],
    [Number.POSITIVE_INFINITY, /finite number/],
    [Number.NEGATIVE_INFINITY, /finite number/],
  ])('rejects the number %f', (value, message) => {
    expect(problem(value)).toMatch(message);
  });

  it.each([
    [null, 'null'],
    [undefined, 'undefined'],
    [true, 'a boolean'],
    [[1], 'an array'],
    [{ value: 1 }, 'an object'],
  ])('rejects %j, naming its type', (value, type) => {
    expect(problem(value)).toContain(`not ${type}`);
  });

  it('suggests the accepted units in its messages', () => {
    expect(problem('3 cubits')).toContain('in, pt, px, mm, cm, pc');
  });
});

describe('conversions', () => {
  it('turns inches into points', () => {
    expect(inchesToPoints(1)).toBe(72);
    expect(inchesToPoints(8.5)).toBe(612);
    expect(inchesToPoints(inches('210mm'))).toBeCloseTo(595.2756, 4);
  });

  it('formats inches briefly for messages', () => {
    expect(formatInches(8.5)).toBe('8.5in');
    expect(formatInches(210 / 25.4)).toBe('8.2677in');
    expect(formatInches(0)).toBe('0in');
  });
});
