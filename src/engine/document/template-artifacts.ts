/**
 * The header and footer of a tagged page marked as artifacts (PDF/UA-1, 7.8; ISO 32000-1, 14.8.2.2):
 * content that is not the document's, which a screen reader skips rather than reading the page
 * number aloud on every page. Chromium paints a page's body first, each part clipped to the
 * printable area, and its templates after it, clipped to the whole page or to their own boxes in the
 * margins; it leaves the templates outside any marked content, and the body's last marked content
 * open until the templates' first operators (its EMC comes after the body's clip is restored). So
 * the templates are found as the first top-level block whose clip is not within the body's, and
 * everything after it; the body's open marked content is closed before them, and they are wrapped
 * in one /Artifact sequence.
 */
import { charClasses, isRegularAt, stringEnd } from './pdf-syntax.js';

const artifactStart = '/Artifact <</Type /Pagination>> BDC\n';

/** `content` (a decoded content stream, latin1) with its templates marked as an artifact, or undefined when it has none found. */
export function markTemplates(content: string): string | undefined {
  let words: OperatorWord[] | undefined;
  try {
    words = operatorWords(content);
  } catch {
    return undefined; // a string that never ends: not a stream to rewrite
  }
  if (!words) return undefined;
  let depth = 0;
  let marked = 0;
  let bodyClip: number[] | undefined;
  let block: OperatorWord | undefined;
  let region = -1;
  let openAtRegion = 0;
  for (let index = 0; index < words.length && region === -1; index += 1) {
    const operator = words[index]!;
    if (operator.word === 'q') {
      if (depth === 0) block = operator;
      depth += 1;
    } else if (operator.word === 'Q') depth -= 1;
    else if (operator.word === 'BDC' || operator.word === 'BMC') marked += 1;
    else if (operator.word === 'EMC') marked -= 1;
    else if (operator.rect && depth === 1 && operator.count - block!.count === 5) {
      // A block's own clip, its first operators: "q x y w h re W n".
      const next = words[index + 1];
      if (next?.count !== operator.count + 1 || !/^W\*?$/.test(next.word)) continue;
      if (!bodyClip) bodyClip = operator.rect;
      else if (!within(operator.rect, bodyClip)) {
        region = words.indexOf(block!);
        openAtRegion = marked;
      }
    }
  }
  if (region === -1) return undefined;
  // The region's EMCs that close what the body opened go before it, where that content ended.
  const parts = [content.slice(0, words[region]!.start), 'EMC\n'.repeat(Math.max(0, openAtRegion)), artifactStart];
  let copied = words[region]!.start;
  let local = 0;
  for (const { word, start } of words.slice(region)) {
    if (word === 'BDC' || word === 'BMC') local += 1;
    else if (word === 'EMC' && local > 0) local -= 1;
    else if (word === 'EMC') {
      parts.push(content.slice(copied, start));
      copied = start + 3;
    }
  }
  parts.push(content.slice(copied), '\nEMC\n');
  return parts.join('');
}

const enum Code {
  Percent = 0x25,
  LeftParen = 0x28,
  Slash = 0x2f,
  Less = 0x3c,
  Greater = 0x3e,
}

/** An operator this reads, where it is, and the number of the word it is (every word counted). */
interface OperatorWord {
  word: string;
  start: number;
  count: number;
  /** The clip or path rectangle before a "re". */
  rect?: number[];
}

const operators = new Set(['q', 'Q', 'BDC', 'BMC', 'EMC', 're', 'W', 'W*']);

/**
 * The operators of a content stream this reads, with their places, skipping strings, names,
 * dictionaries and brackets, and counting the other words: the one pass this needs over what may be
 * megabytes of a long document's pages (a general tokenizer, pdf-syntax.ts, took 30 to 130 ms over the 50-page
 * report's 1.4 MB). Undefined for inline image data, which is not syntax (Chromium writes none).
 */
function operatorWords(content: string): OperatorWord[] | undefined {
  const words: OperatorWord[] = [];
  // The last four words, for the rectangle before "re"; `count` numbers every word.
  const recent: [number, number][] = [];
  let count = 0;
  const length = content.length;
  let at = 0;
  while (at < length) {
    const code = content.charCodeAt(at);
    const kind = code < 256 ? charClasses[code] : 2;
    if (kind === 0) at += 1;
    else if (kind === 2) {
      const start = at;
      while (at < length && isRegularAt(content, at)) at += 1;
      count += 1;
      // Operators are at most three characters; numbers are read only before "re".
      const word = at - start <= 3 ? content.slice(start, at) : '';
      if (word === 'BI') return undefined;
      if (operators.has(word)) {
        const rect =
          word === 're' && recent.length === 4
            ? recent.map(([from, to]) => Number(content.slice(from, to)))
            : undefined;
        words.push({ word, start, count, ...(rect && !rect.some(Number.isNaN) && { rect }) });
      }
      recent.push([start, at]);
      if (recent.length > 4) recent.shift();
    } else if (code === Code.LeftParen) at = stringEnd(content, at);
    else if (code === Code.Less && content.charCodeAt(at + 1) !== Code.Less) {
      const end = content.indexOf('>', at);
      at = end === -1 ? length : end + 1;
    } else if (code === Code.Percent) {
      while (at < length && content[at] !== '\n' && content[at] !== '\r') at += 1;
    } else if (code === Code.Slash) {
      at += 1;
      while (at < length && isRegularAt(content, at)) at += 1;
    } else at += code === Code.Less || code === Code.Greater ? 2 : 1;
  }
  return words;
}

// Whether clip `inner` (x, y, width, height) lies within `outer`, to a hundredth of a unit.
function within([x, y, width, height]: number[], [ox, oy, ow, oh]: number[]): boolean {
  const slack = 0.01;
  return (
    x! >= ox! - slack && y! >= oy! - slack && x! + width! <= ox! + ow! + slack && y! + height! <= oy! + oh! + slack
  );
}
