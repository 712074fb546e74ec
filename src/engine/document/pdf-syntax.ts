/**
 * PDF's lexical syntax (ISO 32000-1, 7.2 and 7.3), shared by the objects of the file and the
 * operators of a page's content stream: tokens found in a latin1 string (one character per byte),
 * each by its place, so what is not changed is copied as it was written. pdf-update.ts reads and
 * edits a handful of dictionaries with it, template-artifacts.ts the content streams.
 */

/** One token: `word` is a number, a keyword (true, R, obj) or a content-stream operator. */
export interface Token {
  kind: 'word' | 'name' | 'string' | 'hex' | '<<' | '>>' | '[' | ']' | '{' | '}';
  start: number;
  end: number;
}

/** Each character code's class (7.2.2): 0 white space, 1 a delimiter, 2 regular (beyond 255 too). */
export const charClasses = new Uint8Array(256).fill(2);
for (const code of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) charClasses[code] = 0;
for (const ch of '()<>[]{}/%') charClasses[ch.charCodeAt(0)] = 1;

/** Whether the character at `at` is regular: part of a name, a number or a keyword. */
export const isRegularAt = (text: string, at: number): boolean => {
  const code = text.charCodeAt(at);
  return code >= 256 || charClasses[code] === 2;
};

/** The token starting at or after `from`, or undefined at the end of `text`. */
export function nextToken(text: string, from: number): Token | undefined {
  let at = from;
  for (;;) {
    while (at < text.length && charClasses[text.charCodeAt(at)] === 0) at += 1;
    if (text.charCodeAt(at) !== 0x25) break; // "%": a comment runs to the end of its line
    while (at < text.length && text[at] !== '\n' && text[at] !== '\r') at += 1;
  }
  if (at >= text.length) return undefined;
  const ch = text[at]!;
  const start = at;
  if (ch === '(') return { kind: 'string', start, end: stringEnd(text, at) };
  if (ch === '<') {
    if (text[at + 1] === '<') return { kind: '<<', start, end: at + 2 };
    const end = text.indexOf('>', at);
    if (end === -1) throw new SyntaxError(`unterminated hex string at ${at}`);
    return { kind: 'hex', start, end: end + 1 };
  }
  if (ch === '>') {
    if (text[at + 1] !== '>') throw new SyntaxError(`stray ">" at ${at}`);
    return { kind: '>>', start, end: at + 2 };
  }
  if (ch === '[' || ch === ']' || ch === '{' || ch === '}') return { kind: ch, start, end: at + 1 };
  if (ch === ')') throw new SyntaxError(`stray ")" at ${at}`);
  // A name, or a word: both run to the next white space or delimiter.
  at += 1;
  while (at < text.length && isRegularAt(text, at)) at += 1;
  return { kind: ch === '/' ? 'name' : 'word', start, end: at };
}

/** A literal string's end, just past its closing parenthesis: parentheses nest unless escaped (7.3.4.2). */
export function stringEnd(text: string, open: number): number {
  let depth = 0;
  for (let at = open; at < text.length; at += 1) {
    const ch = text[at];
    if (ch === '\\') at += 1;
    else if (ch === '(') depth += 1;
    else if (ch === ')' && --depth === 0) return at + 1;
  }
  throw new SyntaxError(`unterminated string at ${open}`);
}

/**
 * Where the value starting at or after `from` ends: a dictionary or an array with everything in
 * it, a reference ("12 0 R") whole, or one token.
 */
export function valueEnd(text: string, from: number): number {
  const first = nextToken(text, from);
  if (!first) throw new SyntaxError(`a value was expected at ${from}`);
  if (first.kind === '<<' || first.kind === '[') {
    // Nested dictionaries and arrays by a stack, not recursion: a file may nest them deeper than
    // the call stack goes.
    const closers: string[] = [first.kind === '<<' ? '>>' : ']'];
    let at = first.end;
    while (closers.length > 0) {
      const next = nextToken(text, at);
      if (!next) throw new SyntaxError(`unterminated ${first.kind} at ${first.start}`);
      if (next.kind === '<<') closers.push('>>');
      else if (next.kind === '[') closers.push(']');
      else if ((next.kind === '>>' || next.kind === ']') && closers.pop() !== next.kind)
        throw new SyntaxError(`unbalanced ${next.kind} at ${next.start}`);
      at = next.end;
    }
    return at;
  }
  if (first.kind !== 'word') return first.end;
  // "12 0 R": two integers and R make one value.
  const second = nextToken(text, first.end);
  const third = second && nextToken(text, second.end);
  if (second?.kind === 'word' && third?.kind === 'word' && text.slice(third.start, third.end) === 'R') return third.end;
  return first.end;
}

/** A dictionary's entries by key (without the slash), each value as written. */
export type RawDict = Map<string, string>;

/** The dictionary starting at or after `from`: its entries and where it ends. */
export function readDict(text: string, from: number): { dict: RawDict; end: number } {
  const open = nextToken(text, from);
  if (open?.kind !== '<<') throw new SyntaxError(`a dictionary was expected at ${from}`);
  const dict: RawDict = new Map();
  let at = open.end;
  for (;;) {
    const key = nextToken(text, at);
    if (!key) throw new SyntaxError(`unterminated dictionary at ${open.start}`);
    if (key.kind === '>>') return { dict, end: key.end };
    if (key.kind !== 'name') throw new SyntaxError(`a key was expected at ${key.start}`);
    const end = valueEnd(text, key.end);
    dict.set(text.slice(key.start + 1, key.end), text.slice(key.end, end).trim());
    at = end;
  }
}

/** A dictionary written back from its entries. */
export const writeDict = (dict: RawDict): string =>
  `<<${[...dict].map(([key, value]) => `/${key} ${value}`).join('\n')}>>`;

/** The object number a reference value ("12 0 R") names, or undefined for any other value. */
export function refNumber(value: string | undefined): number | undefined {
  const match = value && /^(\d+)\s+\d+\s+R$/.exec(value);
  return match ? Number(match[1]) : undefined;
}

/** The references in an array value ("[3 0 R 7 0 R]"), in order. */
export const refNumbers = (value: string | undefined): number[] =>
  [...(value ?? '').matchAll(/(\d+)\s+\d+\s+R/g)].map((match) => Number(match[1]));

/** A text string for a PDF object: UTF-16BE with its byte-order mark, as hex (7.9.2.2), which any text can be. */
export const textString = (text: string): string =>
  `<FEFF${Buffer.from(text, 'utf16le').swap16().toString('hex').toUpperCase()}>`;

/** A PDF date (7.9.4) for `date`, in UTC. */
export const pdfDate = (date: Date): string =>
  `(D:${date
    .toISOString()
    .replace(/[-:T]/g, '')
    .replace(/\.\d+Z$/, '')}Z)`;

const escapes: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' };

/** The text of a string value as written, literal or hex: UTF-16BE with its byte-order mark, or else one byte a character (7.9.2.2). */
export function decodeTextString(value: string): string {
  let bytes: string;
  if (value.startsWith('<')) {
    const hex = value.slice(1, -1).replace(/\s+/g, '');
    bytes = Buffer.from(hex.length % 2 ? `${hex}0` : hex, 'hex').toString('latin1');
  } else {
    bytes = value
      .slice(1, -1)
      .replace(/\\(\r\n|\r|\n|[0-7]{1,3}|.)/gs, (_, escaped: string) =>
        /^[\r\n]/.test(escaped)
          ? ''
          : /^[0-7]/.test(escaped)
            ? String.fromCharCode(parseInt(escaped, 8) & 0xff)
            : (escapes[escaped] ?? escaped),
      );
  }
  if (!bytes.startsWith('\xfe\xff')) return bytes;
  return Buffer.from(bytes.slice(2), 'latin1').swap16().toString('utf16le');
}
