#!/usr/bin/env node
/**
 * Raw puppeteer-core loops that pdfrender is measured against, whole process (browser start included).
 *
 * --mode reused (the reference): the fastest known raw setup, the practical floor. One browser,
 *   reused pages (each navigated once to the first document, for the folder's base URL, then filled
 *   with setContent),
 *   untagged PDFs without an outline, pdfrender's Chromium flags (puppeteer's tagging and outline
 *   launch defaults removed, WebUIOmniboxPopup features and component updates disabled). It
 *   reuses each page's window across documents, which pdfrender only does for documents without
 *   script: a floor, not a safe way to render arbitrary documents.
 * --mode page-per-doc: the same browser and flags, a new page per document (page.goto its file).
 * --mode launch-per-doc: the same flags, a new browser per document.
 * --tagged: the same loop writing tagged PDFs with an outline (puppeteer's tagged and outline
 *   options), as pdfrender does by default: the like-for-like reference for its default renders.
 * --stock: what a minimal script written from puppeteer's README does instead: puppeteer's launch
 *   and pdf() defaults (tagged PDF, its default flags), --no-sandbox only when root requires it.
 *
 * --timings prints {"perDocMs": [...]} on stdout: each document's time from load to PDF written.
 *
 * usage: node bench/raw-loop.mjs --out-dir <dir> [--concurrency 2] [--mode reused] [--stock] [--tagged]
 *          [--header f.html] [--footer f.html] [--margin-top 0.39in] [--margin-bottom 0.39in] [--timings] <inputs...>
 */
import { readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import puppeteer from 'puppeteer-core';
import { requireBrowser } from '../dist/engine/browser/find-browser.js';
import { chromiumFlags } from '../dist/engine/browser/browser-process.js';

const { values, positionals: inputs } = parseArgs({
  allowPositionals: true,
  options: {
    'out-dir': { type: 'string' },
    concurrency: { type: 'string', default: '1' },
    mode: { type: 'string', default: 'reused' },
    stock: { type: 'boolean', default: false },
    tagged: { type: 'boolean', default: false },
    header: { type: 'string' },
    footer: { type: 'string' },
    'margin-top': { type: 'string', default: '0.39in' },
    'margin-bottom': { type: 'string', default: '0.39in' },
    timings: { type: 'boolean', default: false },
  },
});
const { mode, stock } = values;
if (!['reused', 'page-per-doc', 'launch-per-doc'].includes(mode) || !values['out-dir'] || inputs.length === 0) {
  console.error(
    'usage: raw-loop.mjs --out-dir <dir> [--mode reused|page-per-doc|launch-per-doc] [options] <inputs...>',
  );
  process.exit(2);
}
// Reused pages keep the first document's folder as their base URL, so relative links need one folder.
if (mode === 'reused' && new Set(inputs.map((input) => dirname(input))).size > 1) {
  console.error('raw-loop.mjs: --mode reused needs all inputs in one folder');
  process.exit(2);
}

// pdfrender's header/footer defaults (10px, side padding equal to the side margins); Chromium does
// not load template images, so the header's logo is inlined by hand once, as pdfrender does per render.
const style = '<style>#header, #footer { font-size: 10px; padding: 0 0.39in; }</style>';
async function template(file) {
  if (!file) return undefined;
  const html = await readFile(file, 'utf8');
  const logo = join(dirname(file), 'logo.svg');
  const inlined = html.includes('logo.svg')
    ? html.replace('logo.svg', `data:image/svg+xml;base64,${(await readFile(logo)).toString('base64')}`)
    : html;
  return style + inlined;
}
const headerTemplate = await template(values.header);
const footerTemplate = await template(values.footer);
const pdfOptions = {
  width: '8.5in',
  height: '11in',
  margin: { top: values['margin-top'], bottom: values['margin-bottom'], left: '0.39in', right: '0.39in' },
  ...(headerTemplate || footerTemplate
    ? {
        displayHeaderFooter: true,
        headerTemplate: headerTemplate ?? '<span></span>',
        footerTemplate: footerTemplate ?? '<span></span>',
      }
    : {}),
  ...(stock ? {} : { tagged: values.tagged, outline: values.tagged }),
  // No deadline of puppeteer's own (30 s): a long document's time is the tool's, and the bench times out whole runs.
  timeout: 0,
};

const executablePath = requireBrowser().executablePath;
// A hand-written script run as root turns the sandbox off, as Chromium demands there; pdfrender
// keeps it on (as another user), so as root the reference skips the sandbox's cost and we do not.
const noSandbox = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
const launch = () =>
  stock
    ? puppeteer.launch({ executablePath, args: noSandbox })
    : // pdfrender's own switch list, which already holds the puppeteer defaults it keeps (untagged, no outline).
      puppeteer.launch({
        executablePath,
        headless: true,
        pipe: true,
        args: [...noSandbox, ...chromiumFlags],
        ignoreDefaultArgs: true,
        waitForInitialPage: false,
      });

const perDocMs = [];
const outputOf = (input) => join(values['out-dir'], `${basename(input, '.html')}.pdf`);
/** Print one document on `page`, loading it the way `load` says; records its time. */
async function print(page, input, load) {
  const started = performance.now();
  await load(input);
  await writeFile(outputOf(input), await page.pdf(pdfOptions));
  perDocMs.push(performance.now() - started);
}

let next = 0;
const workers = {
  async reused(browser) {
    const page = await browser.newPage();
    // The first document, not its folder: Chromium renders a folder as a listing of every file in it
    // (about 6 s of CPU at 3,000 files), a cost that grows with the batch and that pdfrender does not
    // pay. One document's load per page is what pdfrender's first navigation of a page costs too.
    await page.goto(pathToFileURL(inputs[0]).href, { timeout: 0 });
    while (next < inputs.length) {
      const input = inputs[next++];
      await print(page, input, async () =>
        page.setContent(await readFile(input, 'utf8'), { waitUntil: 'load', timeout: 0 }),
      );
    }
  },
  async 'page-per-doc'(browser) {
    while (next < inputs.length) {
      const input = inputs[next++];
      const page = await browser.newPage();
      await print(page, input, () => page.goto(pathToFileURL(input).href, { waitUntil: 'load', timeout: 0 }));
      await page.close();
    }
  },
  async 'launch-per-doc'() {
    while (next < inputs.length) {
      const input = inputs[next++];
      const browser = await launch();
      const page = await browser.newPage();
      await print(page, input, () => page.goto(pathToFileURL(input).href, { waitUntil: 'load', timeout: 0 }));
      await browser.close();
    }
  },
};

const shared = mode === 'launch-per-doc' ? undefined : await launch();
await Promise.all(Array.from({ length: Number(values.concurrency) }, () => workers[mode](shared)));
await shared?.close();
if (values.timings) console.log(JSON.stringify({ perDocMs }));
