/**
 * The documentation's links hold: every relative link in README.md and docs/*.md names a file that
 * exists, and every #anchor a heading of the page it points at (GitHub's anchors: the heading in
 * lower case, punctuation dropped, spaces as hyphens). Links to other sites are not fetched (no test
 * touches the internet).
 */
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pages, readPage, root } from './support/markdown.js';

/** GitHub's anchor for a heading. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');

/** The anchors of a page's headings (outside code blocks). */
function anchors(page: string): Set<string> {
  const found = new Set<string>();
  for (const { text } of readPage(page).prose) {
    const heading = /^#{1,6} (.*)$/.exec(text);
    if (heading) found.add(anchorOf(heading[1]!));
  }
  return found;
}

/** The relative links of a page (outside code blocks): [text](target). */
function links(page: string): string[] {
  const found: string[] = [];
  for (const { text } of readPage(page).prose) {
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) if (!/^[a-z]+:/.test(match[1]!)) found.push(match[1]!);
  }
  return found;
}

describe('the documentation', () => {
  it('has a table of contents in README.md naming every page of docs/', () => {
    const named = new Set(links('README.md').map((target) => target.split('#')[0]));
    expect(pages.filter((page) => page !== 'README.md' && !named.has(page))).toEqual([]);
  });

  it.each(pages)('%s: every relative link names a file that exists, and every anchor a heading there', (page) => {
    const broken = links(page).filter((target) => {
      const [file, anchor] = target.split('#') as [string, string | undefined];
      const path = file === '' ? page : relative(root, resolve(root, dirname(page), file));
      if (!existsSync(join(root, path))) return true;
      return anchor !== undefined && path.endsWith('.md') && !anchors(path).has(anchor);
    });
    expect(broken).toEqual([]);
  });
});
