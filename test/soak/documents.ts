/**
 * The documents the soak test renders, each with what its PDF must hold: the invoice fixture with
 * its header and footer, a one-page letter, a script-heavy page that writes cookies and storage,
 * a page that opens dialogs and popups, and a runaway script that must hit the deadline.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface SoakDocument {
  name: string;
  /** Render request fields (strings only, so the same fields go into JSON and multipart bodies). */
  fields: Record<string, string>;
  /** Pages and a piece of text the PDF must have; absent for a document that must fail. */
  expect?: { pages: number; text: string };
}

const fixture = resolve(import.meta.dirname, '../../fixtures/invoice');
const read = (name: string) => readFileSync(join(fixture, name), 'utf8');
// The server renders a body, not a folder: the stylesheet and the header's logo travel inline.
const logo = `data:image/svg+xml;base64,${Buffer.from(read('logo.svg')).toString('base64')}`;

const invoice: SoakDocument = {
  name: 'invoice',
  fields: {
    htmlContent: read('invoice.html').replace(
      '<link rel="stylesheet" href="invoice.css">',
      `<style>${read('invoice.css')}</style>`,
    ),
    headerHtmlContent: read('header.html').replace('src="logo.svg"', `src="${logo}"`),
    footerHtmlContent: read('footer.html'),
    marginTop: '0.8in',
    marginBottom: '0.8in',
  },
  expect: { pages: 2, text: 'INV-2026-0042' },
};

// The bench's one-page letter fixture, which loads nothing beside itself.
const letter: SoakDocument = {
  name: 'letter',
  fields: { htmlContent: readFileSync(resolve(import.meta.dirname, '../../fixtures/letter/letter.html'), 'utf8') },
  expect: { pages: 1, text: 'Dear Ms Doe' },
};

// Top-level const, cookies, storage, a timer left running and a few thousand DOM nodes: what must
// not leak from one document into the next, or pile up in the browser.
const scripted: SoakDocument = {
  name: 'script',
  fields: {
    htmlContent: `<!doctype html><html><body><h1 id="title">Script page</h1><div id="out" style="display: none"></div><script>
      const marker = Math.random();
      try { document.cookie = 'soak=' + marker + '; path=/'; } catch { /* nor cookies */ }
      try { localStorage.setItem('soak', String(marker).repeat(1000)); sessionStorage.setItem('soak', 'x'); } catch { /* about:blank has no storage */ }
      setInterval(() => { window.leak = (window.leak || []).concat(new Array(1000).fill(marker)); }, 10);
      const rows = [];
      for (let i = 0; i < 3000; i += 1) rows.push('<span>' + (i * marker).toFixed(3) + '</span> ');
      document.getElementById('out').innerHTML = rows.join('');
      document.getElementById('title').textContent = 'Script page done';
    </script></body></html>`,
  },
  expect: { pages: 1, text: 'Script page done' },
};

const dialogs: SoakDocument = {
  name: 'dialogs',
  fields: {
    htmlContent: `<!doctype html><html><body><script>
      alert('soak'); confirm('soak?'); prompt('soak', 'x');
      window.open('about:blank'); window.print();
      window.addEventListener('beforeunload', (event) => { event.preventDefault(); event.returnValue = ''; });
    </script><p>Dialogs dismissed</p></body></html>`,
  },
  expect: { pages: 1, text: 'Dialogs dismissed' },
};

/** Renders fine but for the server's deadline. */
export const runaway: SoakDocument = {
  name: 'runaway',
  fields: { htmlContent: '<p>never printed</p><script>while (true) {}</script>' },
};

/** The documents that must render, in the order the mix cycles through them. */
export const documents: SoakDocument[] = [invoice, letter, scripted, dialogs];
