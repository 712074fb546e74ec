/**
 * Fields a request names that its schema does not know. zod drops them without a word, so a typo
 * such as "marginTpo" printed with the default margin as if all was well; they are reported instead,
 * each with the known name it is nearest to ("did you mean marginTop?").
 */
import type { FieldErrors } from './errors.js';

/**
 * Names other tools use for a request field (puppeteer's page.pdf options, a plain "html"), pointed at
 * the field: edit distance alone would not find headerHtmlContent from headerTemplate.
 */
const otherToolsNames: Record<string, string> = {
  html: 'htmlContent',
  content: 'htmlContent',
  headerTemplate: 'headerHtmlContent',
  footerTemplate: 'footerHtmlContent',
  width: 'paperWidth',
  height: 'paperHeight',
  margin: 'marginTop, marginRight, marginBottom and marginLeft',
};

/**
 * How many unknown names are reported one by one: a body may hold 10 000 fields (body-shape.ts),
 * and an answer naming each would be as large; the rest are counted under "request".
 */
export const maxNamedUnknown = 20;

/** Names longer than any field's by far get no suggestion, and are cut when echoed: a name may be megabytes long. */
const maxComparedChars = 64;
const maxEchoedChars = 100;

/** `{name: [message]}` for each own key of `input` that is not in `known`; nothing for a value that is not an object. */
export function unknownFieldErrors(input: unknown, known: readonly string[]): FieldErrors {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return {};
  const unknown = Object.keys(input).filter((name) => !known.includes(name));
  const errors: FieldErrors = {};
  for (const name of unknown.slice(0, maxNamedUnknown)) {
    const near = name.length <= maxComparedChars ? nearestName(name, known) : undefined;
    const echoed = name.length <= maxEchoedChars ? name : `${name.slice(0, maxEchoedChars)}…`;
    errors[echoed] = [`is not a request field${near ? `; did you mean ${near}?` : ''}`];
  }
  if (unknown.length > maxNamedUnknown)
    errors.request = [`has ${unknown.length - maxNamedUnknown} more fields that are not request fields`];
  return errors;
}

/** The warning lines of unknown fields that are ignored rather than refused. */
export function unknownFieldWarnings(errors: FieldErrors): string[] {
  return Object.entries(errors).map(([name, [message]]) => `unknown field ${name} ignored: it ${message}`);
}

/**
 * The known name `name` most likely misspells: the same letters but for case, "-" and "_"
 * (margin_top, MarginTop), else the nearest by edit distance counting a swap of neighbours as one
 * edit (marginTpo), within a third of the name's length; undefined when none is that near.
 */
export function nearestName(name: string, known: readonly string[]): string | undefined {
  if (Object.hasOwn(otherToolsNames, name) && known.includes(otherToolsNames[name]!.split(',')[0]!))
    return otherToolsNames[name];
  const plain = (text: string) => text.toLowerCase().replace(/[-_\s]/g, '');
  const wanted = plain(name);
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(wanted, plain(candidate));
    if (!best || distance < best.distance) best = { name: candidate, distance };
  }
  return best && best.distance <= Math.max(1, Math.floor(wanted.length / 3)) ? best.name : undefined;
}

/**
 * Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
 * neighbouring letters, one edit each. Field names are short, so the full table costs nothing.
 */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j += 1) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i += 1)
    for (let j = 1; j <= b.length; j += 1) {
      const row = rows[i]!;
      const above = rows[i - 1]!;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(above[j]! + 1, row[j - 1]! + 1, above[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1);
    }
  return rows[a.length]![b.length]!;
}
