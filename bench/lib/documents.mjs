/**
 * The documents the bench renders (all in fixtures/, nothing from the network) and how each is
 * printed: Letter paper, 0.39 in side margins, the invoice with its header and footer.
 */
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Each document with its print settings; pdfrender and raw-loop.mjs share the flag names. */
export function benchDocuments(root) {
  const fixture = (...parts) => join(root, 'fixtures', ...parts);
  return [
    {
      name: 'invoice',
      // Pages every tool must print; a tool that prints another count printed something else.
      pages: 2,
      file: fixture('invoice/invoice.html'),
      header: fixture('invoice/header.html'),
      footer: fixture('invoice/footer.html'),
      marginTop: '0.8in',
      marginBottom: '0.8in',
    },
    { name: 'letter', pages: 1, file: fixture('letter/letter.html'), marginTop: '0.39in', marginBottom: '0.39in' },
    { name: 'report', pages: 50, file: fixture('report/report.html'), marginTop: '0.39in', marginBottom: '0.39in' },
  ];
}

/** Header, footer and margin flags, understood by both `pdfrender render` and raw-loop.mjs. */
export function printFlags(doc) {
  return [
    ...(doc.header ? ['--header', doc.header] : []),
    ...(doc.footer ? ['--footer', doc.footer] : []),
    '--margin-top',
    doc.marginTop,
    '--margin-bottom',
    doc.marginBottom,
  ];
}

/** A small script of the kind invoices carry (a total filled in on load): it makes every document take the fresh-window reset. */
const invoiceScript =
  "<script>document.addEventListener('DOMContentLoaded', () => { document.title = document.title + ' (' + document.querySelectorAll('tr').length + ' rows)'; });</script>";

/**
 * `count` copies of a bench document (the invoice by default, with its stylesheet, logo, header and
 * footer; or the report with its fonts and images) in `dir`, named invoice-0000.html ...: a batch
 * of distinct files, as a real batch would be; with `script`, each copy runs a small script.
 * Returns the doc settings pointing at the copies and the list of inputs.
 */
export async function documentBatch(root, dir, count, { script = false, document = 'invoice' } = {}) {
  const doc = benchDocuments(root).find((candidate) => candidate.name === document);
  await cp(join(root, 'fixtures', document), dir, { recursive: true });
  const html = await readFile(join(dir, `${document}.html`), 'utf8');
  if (script && !html.includes('</body>'))
    throw new Error(`fixtures/${document}/${document}.html has no </body> to put the script before`);
  const inputs = [];
  for (let i = 0; i < count; i += 1) {
    const name = join(dir, `${document}-${String(i).padStart(4, '0')}.html`);
    await writeFile(name, script ? html.replace('</body>', `${invoiceScript}</body>`) : html);
    inputs.push(name);
  }
  const templates = {
    ...(doc.header && { header: join(dir, 'header.html') }),
    ...(doc.footer && { footer: join(dir, 'footer.html') }),
  };
  return { doc: { ...doc, ...templates }, inputs };
}

/**
 * The invoice as an HTTP render request: stylesheet inlined (a request body has no folder) and the
 * page-number footer; the header is left out, since its logo is a file the server may not read.
 */
export async function invoiceRequest(root) {
  const dir = join(root, 'fixtures/invoice');
  const css = await readFile(join(dir, 'invoice.css'), 'utf8');
  const htmlContent = (await readFile(join(dir, 'invoice.html'), 'utf8')).replace(
    '<link rel="stylesheet" href="invoice.css">',
    `<style>${css}</style>`,
  );
  if (!htmlContent.includes(css))
    throw new Error('fixtures/invoice/invoice.html no longer links invoice.css as the bench expects');
  return {
    htmlContent,
    footerHtmlContent: await readFile(join(dir, 'footer.html'), 'utf8'),
    marginTop: '0.8in',
    marginBottom: '0.8in',
  };
}

/**
 * `count` files holding the request's HTML, plus its footer, so the raw loop renders exactly what
 * the server renders. Returns { inputs, footer }.
 */
export async function requestAsFiles(request, dir, count) {
  const footer = join(dir, 'footer.html');
  await writeFile(footer, request.footerHtmlContent);
  const inputs = [];
  for (let i = 0; i < count; i += 1) {
    inputs.push(join(dir, `request-${String(i).padStart(4, '0')}.html`));
    await writeFile(inputs[i], request.htmlContent);
  }
  return { inputs, footer };
}
