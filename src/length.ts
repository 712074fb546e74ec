/**
 * CSS-like lengths for paper sizes and margins: a number, or a string with a unit.
 * A bare number means inches, as in the RenderPDF.io API ("8.5" and 8.5 are both 8.5in).
 */

/** Units a length may carry, with how many of them make one inch (72pt = 96px = 1in = 25.4mm = 2.54cm = 6pc). */
export const unitsPerInch = {
  in: 1,
  pt: 72,
  px: 96,
  mm: 25.4,
  cm: 2.54,
  pc: 6,
} as const;

export type LengthUnit = keyof typeof unitsPerInch;

// Digits with an optional fraction, or a bare fraction (".5"); then an optional unit.
// Signs, exponents and anything trailing are deliberately not accepted. Matched against the
// trimmed value: a \s* on both sides of an optional unit backtracks quadratically over a long
// run of spaces (a 40 000-space margin took 6 s).
const lengthPattern = /^(\d+(?:\.\d*)?|\.\d+)\s*([a-z]*)$/i;

/** Parse a length into inches; returns an explanation string instead when it is not a valid length. */
export function parseLength(value: unknown): { inches: number } | { problem: string } {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return { problem: 'must be a finite number' };
    if (value < 0) return { problem: 'must not be negative' };
    return { inches: value };
  }
  if (typeof value !== 'string')
    return { problem: `must be a number or a string such as "210mm", not ${describeType(value)}` };
  const trimmed = value.trim();
  if (trimmed === '') return { problem: 'must not be empty' };
  if (trimmed.startsWith('-')) return { problem: `must not be negative (got "${value}")` };
  const match = lengthPattern.exec(trimmed);
  if (!match)
    return {
      problem: `"${value}" is not a length; use a number with an optional unit (${unitList()}), e.g. "8.5in" or "210mm"`,
    };
  const [, amount, rawUnit] = match as unknown as [string, string, string];
  const unit = rawUnit.toLowerCase();
  if (unit !== '' && !(unit in unitsPerInch)) {
    return { problem: `unknown unit "${rawUnit}" in "${value}"; use one of ${unitList()}` };
  }
  const perInch = unit === '' ? 1 : unitsPerInch[unit as LengthUnit];
  // A long enough digit string is Infinity to Number(): the same value the number form rejects.
  if (!Number.isFinite(Number(amount))) return { problem: `must be a finite number (got "${value}")` };
  return { inches: Number(amount) / perInch };
}

/** A short human form of a length in inches, for error messages ("8.5in"). */
export function formatInches(inches: number): string {
  return `${Number(inches.toFixed(4))}in`;
}

function unitList(): string {
  return Object.keys(unitsPerInch).join(', ');
}

function describeType(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
