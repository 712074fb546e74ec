/**
 * The bench's report document, generated: one section a page with PNG and SVG figures, a table and
 * a web font loaded by @font-face from its folder's fonts/. make-report-fixture.mjs writes the
 * 50-page fixture with it; the pages curve (cases/pages-curve.mjs) any other page count. A seeded
 * generator, so the same page count always gives the same bytes.
 */
import { deflateSync } from 'node:zlib';

// A small seeded generator (mulberry32) so the text and figures are the same on every rebuild.
let seed;
const random = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = (list) => list[Math.floor(random() * list.length)];

// PNG by hand (Node 20 has no zlib.crc32): enough of the format for an 8-bit RGB image.
const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (bytes) => {
  let c = 0xffffffff;
  for (const b of bytes) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const chunk = (type, data) => {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
};
function png(width, height, pixel) {
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y += 1) {
    const row = y * (width * 3 + 1); // each row starts with filter type 0
    for (let x = 0; x < width; x += 1) raw.set(pixel(x, y), row + 1 + x * 3);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB, deflate, no filter, no interlace
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

// A bar chart on a soft gradient with a little grain, so it compresses like a real figure, not like a flat fill.
function chartPng(bars, hue) {
  const [w, h] = [480, 220];
  const heights = Array.from({ length: bars }, () => 0.2 + random() * 0.7);
  const grain = Array.from({ length: 64 }, () => Math.floor(random() * 6));
  return png(w, h, (x, y) => {
    const bar = Math.floor((x - 20) / ((w - 40) / bars));
    const inBar =
      x > 20 && x < w - 20 && (x - 20) % ((w - 40) / bars) > 6 && y > h - 10 - heights[bar] * (h - 30) && y < h - 10;
    const g = grain[(x * 7 + y * 13) % 64];
    if (inBar) return [hue[0] - g, hue[1] - g, hue[2] - g];
    const shade = 245 - Math.floor((y / h) * 20) - g;
    return [shade, shade, Math.min(255, shade + 6)];
  });
}

function lineSvg(points, colour) {
  const values = Array.from({ length: points }, () => 20 + random() * 140);
  const path = values
    .map((v, i) => `${i === 0 ? 'M' : 'L'}${(20 + (i * 440) / (points - 1)).toFixed(1)} ${(180 - v).toFixed(1)}`)
    .join(' ');
  const grid = [40, 80, 120, 160].map((y) => `<line x1="20" x2="460" y1="${y}" y2="${y}" stroke="#d9e2ec"/>`).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="480" height="200" viewBox="0 0 480 200"><rect width="480" height="200" fill="#f8fafc"/>${grid}<path d="${path}" fill="none" stroke="${colour}" stroke-width="2.5"/></svg>\n`;
}

const words =
  'the of and to in report quarter revenue growth customer service support region market team delivery cost margin forecast product release risk plan review target measure result change increase decrease steady board operations capacity demand supply contract partner budget audit quality'.split(
    ' ',
  );
const sentence = () => {
  const text = Array.from({ length: 9 + Math.floor(random() * 10) }, () => pick(words)).join(' ');
  return `${text[0].toUpperCase() + text.slice(1)}.`;
};
const paragraph = (sentences) => Array.from({ length: sentences }, sentence).join(' ');

const hues = [
  [29, 78, 216],
  [5, 150, 105],
  [217, 119, 6],
  [190, 24, 93],
  [79, 70, 229],
  [14, 116, 144],
];
const colours = ['#1d4ed8', '#059669', '#d97706', '#be185d'];

/**
 * The report of `pages` pages (one section each): { html, figures } with figures as { 'images/<name>': bytes }.
 * The figures come first from the generator, so they are the same for every page count.
 */
export function reportDocument(pages) {
  seed = 20261101;
  const figures = {};
  for (const [i, hue] of hues.entries()) figures[`images/chart-${i + 1}.png`] = chartPng(6 + i, hue);
  for (const [i, colour] of colours.entries()) figures[`images/trend-${i + 1}.svg`] = lineSvg(12 + i * 4, colour);
  const sections = [];
  for (let page = 1; page <= pages; page += 1) {
    // PNG and SVG figures alternate; every file is used several times, as a real report reuses its assets.
    const figure =
      page % 2
        ? `images/chart-${(((page - 1) / 2) % hues.length) + 1}.png`
        : `images/trend-${((page / 2 - 1) % colours.length) + 1}.svg`;
    const rows = Array.from(
      { length: 4 },
      () =>
        `<tr><td>${pick(words)} ${pick(words)}</td><td class="num">${(random() * 9000 + 1000).toFixed(0)}</td><td class="num">${(random() * 40 - 10).toFixed(1)}%</td></tr>`,
    ).join('');
    sections.push(`<section>
  <h2>${page}. ${sentence().slice(0, 40).replace(/\.$/, '')}</h2>
  <p>${paragraph(4)}</p>
  <figure><img src="${figure}" width="480" height="${figure.endsWith('.png') ? 220 : 200}" alt="Figure ${page}"><figcaption>Figure ${page}. ${sentence()}</figcaption></figure>
  <p>${paragraph(5)}</p>
  <table><thead><tr><th>Item</th><th class="num">Value</th><th class="num">Change</th></tr></thead><tbody>${rows}</tbody></table>
  <p>${paragraph(3)}</p>
</section>`);
  }
  const html = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Annual operations report</title>
  <!-- Generated by bench/make-report-fixture.mjs: one section per page, ${pages} pages. -->
  <style>
    /* The web font comes from this folder, so the bench measures a font download and embedding, not a system font. */
    @font-face { font-family: "Report Serif"; src: url("fonts/DejaVuSerif.ttf") format("truetype"); }
    body { font-family: "Report Serif", serif; font-size: 10pt; line-height: 1.4; color: #1f2933; margin: 0; }
    section { break-after: page; }
    section:last-child { break-after: auto; }
    h2 { font-size: 15pt; color: #1d4ed8; margin: 0 0 8pt; }
    p { margin: 0 0 8pt; text-align: justify; }
    figure { margin: 10pt 0; text-align: center; }
    figcaption { font-size: 8.5pt; color: #52606d; margin-top: 4pt; }
    table { width: 100%; border-collapse: collapse; margin: 8pt 0; }
    th { text-align: left; background: #e4e7eb; padding: 3pt 5pt; }
    td { padding: 3pt 5pt; border-bottom: 0.5pt solid #cbd2d9; }
    .num { text-align: right; }
  </style>
</head>
<body>
${sections.join('\n')}
</body>
</html>
`;
  return { html, figures };
}
