/**
 * The playground page's markup and style. Everything it loads comes from this server (its script,
 * its style sheet, the PDF as a blob: URL), which its Content-Security-Policy holds it to.
 */
import type { PlaygroundSetup } from './playground-fields.js';

/** The page's policy: its own script, style and API calls, the PDF frame from blob: URLs, nothing else. */
export const playgroundPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  'frame-src blob:',
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The page's HTML, carrying `setup` as a JSON data block (not a script, so the policy allows it). */
export function playgroundHtml(setup: PlaygroundSetup): string {
  // "<" escaped, so no text in the setup can close the data block.
  const data = JSON.stringify(setup).replace(/</g, '\\u003c');
  // Relative URLs, so the page works behind a proxy that serves pdfrender under a path.
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>pdfrender playground</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="playground.css">
<script type="application/json" id="playground-setup">${data}</script>
<script src="playground.js" defer></script>
</head>
<body>
<header>
  <h1>pdfrender playground</h1>
  <label id="key-field" hidden>API key <input id="api-key" type="password" autocomplete="off" title="sent as Authorization: Bearer; kept in this tab only"></label>
  <button type="submit" form="request">Render</button>
  <button type="button" id="reset" title="back to the sample document and the default options">Reset</button>
  <output id="status" data-state="idle" aria-live="polite"></output>
</header>
<main>
  <form id="request">
    <label id="editor-htmlContent" class="editor document">Document HTML</label>
    <label id="editor-headerHtmlContent" class="editor">Header HTML</label>
    <label id="editor-footerHtmlContent" class="editor">Footer HTML</label>
    <fieldset id="options"><legend>Options</legend></fieldset>
    <fieldset id="equivalent">
      <legend>The same request</legend>
      <button type="button" id="copy-curl">Copy as curl</button>
      <textarea id="curl" readonly rows="6" spellcheck="false" aria-label="curl command"></textarea>
      <button type="button" id="copy-json">Copy JSON body</button>
      <textarea id="json-body" readonly rows="6" spellcheck="false" aria-label="JSON body"></textarea>
    </fieldset>
  </form>
  <section id="preview">
    <ul id="problems" role="alert"></ul>
    <section id="report" aria-label="preflight report" hidden><h2>Preflight report</h2><ul id="report-kinds"></ul></section>
    <iframe id="pdf" title="the rendered PDF"></iframe>
  </section>
</main>
</body>
</html>
`;
}

/** The page's style sheet: editor on the left, the PDF on the right. */
export const playgroundCss = `* { box-sizing: border-box; }
html, body { height: 100%; margin: 0; }
body { display: flex; flex-direction: column; font: 14px/1.4 system-ui, sans-serif; color: #1d1d1f; background: #f4f5f7; }
header { display: flex; flex-wrap: wrap; align-items: center; gap: 0.75rem; padding: 0.5rem 1rem; background: #1a2b42; color: #fff; }
header h1 { font-size: 1rem; margin: 0 auto 0 0; }
header input { width: 14rem; }
button { font: inherit; padding: 0.3rem 0.8rem; border: 1px solid #8893a3; border-radius: 4px; background: #fff; cursor: pointer; }
button[type=submit] { background: #2f6fde; border-color: #2f6fde; color: #fff; }
#status { min-width: 16rem; font-variant-numeric: tabular-nums; }
#status[data-state=error] { color: #ffb4a8; font-weight: 600; }
main { flex: 1; display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); min-height: 0; }
form { min-width: 0; overflow: auto; padding: 0.75rem 1rem; display: flex; flex-direction: column; gap: 0.6rem; }
.editor { display: flex; flex-direction: column; font-weight: 600; gap: 0.2rem; }
textarea, input, select { font: 13px/1.35 ui-monospace, monospace; padding: 0.3rem; border: 1px solid #b8c0cc; border-radius: 4px; }
.editor textarea { min-height: 4.5rem; resize: vertical; }
.editor.document textarea { min-height: 16rem; }
fieldset { border: 1px solid #c9d0da; border-radius: 4px; }
#options { display: grid; grid-template-columns: repeat(auto-fill, minmax(12rem, 1fr)); gap: 0.4rem 0.8rem; }
#options legend, #equivalent legend { font-weight: 600; }
#options label { display: flex; flex-direction: column; gap: 0.1rem; min-width: 0; color: #444; overflow-wrap: anywhere; }
#options label.switch { flex-direction: row; align-items: center; gap: 0.4rem; }
#options label.wide { grid-column: 1 / -1; }
#options textarea { resize: vertical; }
[aria-invalid=true] { border-color: #d93025; outline: 2px solid #f6aea9; }
#equivalent { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0.4rem; align-items: start; }
#equivalent textarea { background: #eef0f3; resize: vertical; }
#preview { display: flex; flex-direction: column; border-left: 1px solid #c9d0da; min-height: 0; }
#problems { margin: 0; padding: 0 1rem 0 2rem; color: #a50e0e; background: #fdecea; max-height: 30%; overflow: auto; }
#problems:empty { display: none; }
#problems li { padding: 0.2rem 0; }
#report { padding: 0.3rem 1rem; background: #fff8e1; border-bottom: 1px solid #e6d9a8; max-height: 35%; overflow: auto; }
#report h2 { font-size: 0.85rem; margin: 0 0 0.2rem; }
#report ul { margin: 0; padding-left: 1.2rem; }
#report[data-problems="0"] { background: #e8f5e9; border-color: #b7dcb9; }
#report li li { overflow-wrap: anywhere; font: 12px/1.35 ui-monospace, monospace; }
#pdf { flex: 1; width: 100%; border: 0; background: #525659; }
`;
