/**
 * Whether a document may run script (and so leave globals, timers or prototype changes behind in
 * the page's window). A document that cannot is followed by the next one on the same page through
 * document.open, which keeps the window; one that can is followed by a navigation, which gives the
 * next document a fresh window but costs about 25 ms. The test is deliberately coarse: any hint of
 * script counts, since a false "yes" only costs time and a false "no" could leak state.
 */

// <script>, inline handlers (onload=, onerror= ...), javascript: URLs, and frames or plugins whose
// own scripts could reach the parent window.
const scriptHints = /<\s*(?:script|iframe|frame|object|embed|portal)\b|\bon[a-z]+\s*=|javascript\s*:|srcdoc\s*=/i;

/** True unless the HTML certainly runs no script. */
export function mayRunScript(html: string): boolean {
  return scriptHints.test(html);
}
