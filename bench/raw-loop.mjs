#!/usr/bin/env node
/**
 * The reference for batch benchmarks: the fastest known raw puppeteer-core loop. One browser,
 * reused pages (each navigated once to the documents' folder, then filled with setContent),
 * untagged PDFs without an outline, the same Chromium flags as pdfrender. It reuses each page's
 * window across documents, which pdfrender only does for documents without script: that is the
 * floor pdfrender is measured against, not a safe way to render arbitrary documents.
 *
 * usage: node bench/raw-loop.mjs <out-dir> <concurrency> <header.html> <footer.html> <inputs...>
 */
import { readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer-core';
import { chromiumFlags, droppedDefaultFlags } from '../dist/engine/launch.js';
import { requireBrowser } from '../dist/engine/find-browser.js';

const [outDir, concurrencyArg, headerFile, footerFile, ...inputs] = process.argv.slice(2);
const concurrency = Number(concurrencyArg);
const style = '<style>#header, #footer { font-size: 10px; padding: 0 0.39in; }</style>';
// Chromium does not load template images, so the raw loop inlines the header's logo by hand once.
const logo = `data:image/svg+xml;base64,${(await readFile(join(dirname(headerFile), 'logo.svg'))).toString('base64')}`;
const headerTemplate = style + (await readFile(headerFile, 'utf8')).replace('logo.svg', logo);
const footerTemplate = style + (await readFile(footerFile, 'utf8'));

const browser = await puppeteer.launch({
  executablePath: requireBrowser().executablePath,
  headless: true,
  pipe: true,
  args: chromiumFlags,
  ignoreDefaultArgs: droppedDefaultFlags,
});
let next = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    const page = await browser.newPage();
    await page.goto(pathToFileURL(dirname(inputs[0])).href + '/');
    while (next < inputs.length) {
      const input = inputs[next++];
      await page.setContent(await readFile(input, 'utf8'), { waitUntil: 'load' });
      const pdf = await page.pdf({
        width: '8.5in',
        height: '11in',
        margin: { top: '0.8in', bottom: '0.8in', left: '0.39in', right: '0.39in' },
        displayHeaderFooter: true,
        headerTemplate,
        footerTemplate,
        tagged: false,
        outline: false,
      });
      await writeFile(join(outDir, basename(input, '.html') + '.pdf'), pdf);
    }
  }),
);
await browser.close();
