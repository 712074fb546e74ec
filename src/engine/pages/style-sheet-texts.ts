/**
 * The text of the style sheets a document loads, as they arrived: what Chromium parsed drops what
 * it does not support (target-counter), so page-references.ts reads the text. It comes from
 * DevTools' Network domain (the response bodies it keeps), never fetched again, and never through
 * Page.getResourceContent, which loads the document's own URL again to answer (measured: the CLI's
 * folder URL, reported as a failed load). A sheet Chromium takes from its memory cache sends no
 * Network event at all, so the engine keeps the texts it has read, by URL, for the documents that
 * load them again (the same style sheet for every invoice of a batch).
 */
import type { HTTPResponse, Page } from 'puppeteer-core';

/** The engine's texts of style sheets read lately, by URL; bounded, the oldest dropped first. */
export interface SheetTexts {
  get(url: string): string | undefined;
  set(url: string, text: string): void;
}

/** An empty store of style sheet texts, of at most `maxChars` characters in all. */
export function sheetTexts(maxChars = 8_000_000): SheetTexts {
  const texts = new Map<string, string>();
  let chars = 0;
  return {
    get(url) {
      const text = texts.get(url);
      // Read again: the most recently used go last, so the oldest are dropped first.
      if (text !== undefined) {
        texts.delete(url);
        texts.set(url, text);
      }
      return text;
    },
    set(url, text) {
      chars -= texts.get(url)?.length ?? 0;
      texts.delete(url);
      if (text.length > maxChars) return;
      texts.set(url, text);
      chars += text.length;
      for (const [oldest, dropped] of texts) {
        if (chars <= maxChars) break;
        texts.delete(oldest);
        chars -= dropped.length;
      }
    },
  };
}

/** The style sheets a document loaded over the network (linked, imported, its frames'), until stop(). */
export interface NotedSheets {
  /**
   * The texts of the first `max` sheets by URL, also kept in the engine's store; a body no longer
   * kept, or said to be over `maxBytes`, reads as empty (not sent through DevTools at all).
   */
  texts(max: number, maxBytes: number): Promise<Map<string, string>>;
  stop(): void;
}

/** Note the style sheets `page` loads from now on, keeping their texts in `store` once read. */
export function noteStyleSheets(page: Page, store: SheetTexts): NotedSheets {
  const responses: HTTPResponse[] = [];
  const onResponse = (response: HTTPResponse) => {
    if (response.request().resourceType() === 'stylesheet') responses.push(response);
  };
  page.on('response', onResponse);
  return {
    async texts(max, maxBytes) {
      const read = responses.slice(0, max);
      const small = (response: HTTPResponse) => !(Number(response.headers()['content-length']) > maxBytes);
      const texts = await Promise.all(read.map((response) => (small(response) ? response.text().catch(() => '') : '')));
      const byUrl = new Map(read.map((response, index) => [response.url(), texts[index]!]));
      for (const [url, text] of byUrl) store.set(url, text);
      return byUrl;
    },
    stop: () => void page.off('response', onResponse),
  };
}
