/**
 * The documentation as the documentation tests read it: README.md and docs/*.md, each split into its
 * prose (the lines outside code blocks) and its fenced code blocks, every line with its number.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The repository's root. */
export const root = resolve(import.meta.dirname, '../..');

/** The documentation's pages, relative to the root: README.md, then docs/*.md. */
export const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** A line of a page: its number (from 1) and its text. */
export interface Line {
  number: number;
  text: string;
}

/** A fenced code block: the language its fence names ('' for none), the fence's line, and the lines inside. */
export interface CodeBlock {
  language: string;
  start: number;
  lines: Line[];
}

/** A page's prose (the lines outside code blocks and their fences) and its code blocks. */
export function readPage(page: string): { prose: Line[]; blocks: CodeBlock[] } {
  const prose: Line[] = [];
  const blocks: CodeBlock[] = [];
  let block: CodeBlock | undefined;
  readFileSync(join(root, page), 'utf8')
    .split('\n')
    .forEach((text, index) => {
      const line = { number: index + 1, text };
      if (text.startsWith('```')) {
        if (block) block = undefined;
        else blocks.push((block = { language: text.slice(3).trim(), start: line.number, lines: [] }));
      } else if (block) block.lines.push(line);
      else prose.push(line);
    });
  return { prose, blocks };
}
