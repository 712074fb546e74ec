/**
 * singlePage's document prints without its forced page breaks (break-before/after: page, and the
 * older page-break-before/after: always), which would otherwise start a new page of the full height
 * however tall the one page is. A style sheet is adopted for the print and dropped right after it:
 * made in pdfrender's isolated world, so the document cannot reach it to keep it, and dropped
 * explicitly because an adopted sheet outlives the document written over it (a pooled page's next
 * document would inherit it).
 */

// Every element: `:is` takes the specificity of its most specific argument (an element cannot have
// two ids, so `#a#b...` matches nothing), which beats the document's own rules, !important ones too
// (an inline style's !important still wins).
const noBreaks = `:is(*, #a#b#c#d#e#f#g#h) { break-before: auto !important; break-after: auto !important; }`;
const adopt = `globalThis.pdfrenderNoBreaks ??= new CSSStyleSheet(), pdfrenderNoBreaks.replaceSync(${JSON.stringify(noBreaks)}),
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, pdfrenderNoBreaks], true`;
const drop = `document.adoptedStyleSheets = document.adoptedStyleSheets.filter((sheet) => sheet !== globalThis.pdfrenderNoBreaks), true`;

/** Run `print` with the document's forced page breaks ignored, evaluating in pdfrender's isolated world with `evaluate`. */
export async function withoutPageBreaks<T>(
  evaluate: (expression: string) => Promise<unknown>,
  print: () => Promise<T>,
): Promise<T> {
  await evaluate(adopt);
  try {
    return await print();
  } finally {
    await evaluate(drop);
  }
}
