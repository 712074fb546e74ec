/**
 * Reading a PDF's tagging as a screen reader's PDF library would, through pdfjs (Mozilla's reader,
 * not the code under test): each page's structure tree with the text each element's marked content
 * holds, the text marked as artifacts, the outline with the page each entry goes to, and the XMP.
 * The catalog's own entries come from qpdf (pdf-tools.ts); pageMcids reads the content streams with it.
 */
import { execFileSync } from 'node:child_process';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { withFile } from './pdf-tools.js';

/** A structure element: its role (H1, P, Table, TH, Figure...), alt text, text, and children. */
export interface StructNode {
  role: string;
  alt?: string;
  /** The text of the marked content under it (Chromium puts an element's text in NonStruct children). */
  text: string;
  children: StructNode[];
}

export interface PageTagging {
  /** The page's structure tree (pdfjs gives the tree as each page sees it). */
  structure: StructNode | null;
  /** Text inside /Artifact marked content. */
  artifacts: string[];
  /** Text inside marked content with an MCID (what the structure tree can point to). */
  tagged: string[];
  /** Text in no marked content at all. */
  untagged: string[];
}

export interface Tagging {
  pages: PageTagging[];
  /** Outline entries with the 1-based page each goes to. */
  outline: { title: string; page: number }[];
  /** The XMP metadata packet, as text ('' when there is none). */
  xmp: string;
}

type ContentItem =
  | { type: 'beginMarkedContent' | 'beginMarkedContentProps'; tag?: string; id?: string }
  | { type: 'endMarkedContent' }
  | { str: string };
interface RawNode {
  role?: string;
  alt?: string;
  type?: string;
  id?: string;
  children?: RawNode[];
}

/** Read `data`'s tagging with pdfjs. */
export async function readTagging(data: Uint8Array): Promise<Tagging> {
  const document = await getDocument({ data: new Uint8Array(data), isEvalSupported: false }).promise;
  try {
    const pages: PageTagging[] = [];
    for (let number = 1; number <= document.numPages; number += 1) {
      const page = await document.getPage(number);
      const content = await page.getTextContent({ includeMarkedContent: true });
      const byId = new Map<string, string>();
      const artifacts: string[] = [];
      const tagged: string[] = [];
      const untagged: string[] = [];
      const open: { tag?: string; id?: string }[] = [];
      for (const item of content.items as ContentItem[]) {
        if ('type' in item && item.type !== 'endMarkedContent') open.push({ tag: item.tag, id: item.id });
        else if ('type' in item) open.pop();
        else if (item.str.trim()) {
          const withId = open.findLast((entry) => entry.id);
          if (open.some((entry) => entry.tag === 'Artifact')) artifacts.push(item.str);
          else if (withId?.id) {
            tagged.push(item.str);
            byId.set(withId.id, `${byId.get(withId.id) ?? ''}${item.str}`);
          } else untagged.push(item.str);
        }
      }
      const tree = (await page.getStructTree()) as RawNode | null;
      const convert = (node: RawNode): StructNode => {
        const children = (node.children ?? []).map((child) =>
          child.role === undefined
            ? child.type === 'content' && child.id
              ? (byId.get(child.id) ?? '')
              : ''
            : convert(child),
        );
        return {
          role: node.role ?? '',
          ...(node.alt !== undefined && { alt: node.alt }),
          text: children.map((child) => (typeof child === 'string' ? child : child.text)).join(''),
          children: children.filter((child): child is StructNode => typeof child !== 'string'),
        };
      };
      pages.push({ structure: tree ? convert(tree) : null, artifacts, tagged, untagged });
    }
    const outline: Tagging['outline'] = [];
    const walk = async (items: Awaited<ReturnType<typeof document.getOutline>>) => {
      for (const item of items ?? []) {
        const dest = typeof item.dest === 'string' ? await document.getDestination(item.dest) : item.dest;
        const target = dest?.[0] as { num: number; gen: number } | undefined;
        outline.push({ title: item.title, page: target ? (await document.getPageIndex(target)) + 1 : 0 });
        await walk(item.items);
      }
    };
    await walk(await document.getOutline());
    const { metadata } = await document.getMetadata();
    return { pages, outline, xmp: metadata ? String(metadata.getRaw()) : '' };
  } finally {
    await document.destroy();
  }
}

/** Every structure element under `node` (itself included), depth first. */
export const structNodes = (node: StructNode | null): StructNode[] =>
  node ? [node, ...node.children.flatMap(structNodes)] : [];

/** The marked-content IDs in each page's own content streams (not in forms it draws), as qpdf decodes them. */
export function pageMcids(data: Uint8Array): number[][] {
  return withFile(data, (file) => {
    const json = JSON.parse(
      execFileSync('qpdf', ['--json=2', '--json-stream-data=inline', '--decode-level=generalized', file], {
        encoding: 'utf8',
        maxBuffer: 256 << 20,
      }),
    ) as {
      pages: { contents: string[] }[];
      qpdf: [unknown, Record<string, { stream?: { data?: string } }>];
    };
    return json.pages.map((page) =>
      page.contents.flatMap((ref) => {
        const content = Buffer.from(json.qpdf[1][`obj:${ref}`]?.stream?.data ?? '', 'base64').toString('latin1');
        return [...content.matchAll(/\/MCID\s+(\d+)/g)].map((match) => Number(match[1]));
      }),
    );
  });
}
