/**
 * The simple commands of a documentation shell block, as a shell would split them into words: enough
 * of sh for what documentation writes (quotes, backslash continuations, comments, `&&`, `||`, `;`,
 * `|`, `&`, subshells and redirections), not a shell. A leading `$ ` prompt is dropped, and so is a
 * command's leading `NAME=value` environment. A synopsis's optional parts stand as if given: in
 * `pdfrender webhooks list [--json] [--data-dir dir | --database url]` the brackets drop away and
 * the `|` between alternatives only separates words, so every flag a synopsis names is checked.
 */
import type { Line } from './markdown.js';

/** One simple command: the line it starts on and its words. */
export interface ShellCommand {
  line: number;
  words: string[];
}

/** The commands of a shell block's lines. */
export function shellCommands(lines: Line[]): ShellCommand[] {
  const commands: ShellCommand[] = [];
  for (let index = 0; index < lines.length; index++) {
    const first = lines[index]!;
    let text = first.text.replace(/^\s*\$ /, '');
    // A line ending in a backslash goes on on the next (a comment cannot be continued).
    while (/(^|[^\\])\\$/.test(text) && index + 1 < lines.length) text = `${text.slice(0, -1)} ${lines[++index]!.text}`;
    for (const words of splitCommands(text)) commands.push({ line: first.number, words });
  }
  return commands;
}

/** The words of each simple command of one logical line. */
function splitCommands(text: string): string[][] {
  const commands: string[][] = [];
  let words: string[] = [];
  let word: string | undefined;
  let redirect = false;
  let brackets = 0;
  const endWord = () => {
    if (word !== undefined) {
      if (redirect) redirect = false;
      else words.push(word);
    }
    word = undefined;
  };
  const endCommand = () => {
    endWord();
    const start = words.findIndex((w) => !/^[A-Za-z_]\w*=/.test(w));
    if (start !== -1) commands.push(words.slice(start));
    words = [];
  };
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === "'") {
      const end = text.indexOf("'", i + 1);
      if (end === -1) throw new Error(`unterminated ' in: ${text}`);
      word = (word ?? '') + text.slice(i + 1, end);
      i = end;
    } else if (char === '"') {
      word ??= '';
      for (i++; i < text.length && text[i] !== '"'; i++)
        word += text[i] === '\\' && /["\\$`]/.test(text[i + 1] ?? '') ? text[++i] : text[i];
      if (i >= text.length) throw new Error(`unterminated " in: ${text}`);
    } else if (char === '\\') word = (word ?? '') + (text[++i] ?? '');
    else if (/\s/.test(char)) endWord();
    else if (char === '#' && word === undefined) break;
    else if (char === '[' && word === undefined) brackets++;
    else if (char === ']' && brackets > 0) {
      brackets--;
      endWord();
    } else if (char === '|' && brackets > 0) endWord();
    else if ('|&;()'.includes(char)) {
      endCommand();
      if (text[i + 1] === char && char !== '(' && char !== ')') i++;
    } else if (char === '>' || char === '<') {
      // `2>`: the digits name a file descriptor, not a word.
      if (word !== undefined && /^\d+$/.test(word)) word = undefined;
      endWord();
      if (text[i + 1] === char || text[i + 1] === '&') i++;
      redirect = true;
    } else word = (word ?? '') + char;
  }
  endCommand();
  return commands;
}
