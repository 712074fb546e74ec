/**
 * When a render's templates are stamped (template-stamps.ts), without Chromium: the first render of
 * a template prints it, later ones print without it and lay a stamp over; a stamp that cannot be
 * printed or does not fit the PDF gives them to Chromium for good, as do templates printed with the
 * document's own faces.
 */
import { describe, expect, it } from 'vitest';
import { createTemplateStamps, renderWithStamps, stampKey } from '../src/engine/template-stamps.js';
import type { Templates } from '../src/engine/pages/print-document.js';
import type { TemplateFonts } from '../src/engine/template-fonts.js';
import { buildTemplate } from '../src/engine/templates/header-footer.js';
import { parseRenderRequest, type RenderRequestInput } from '../src/request.js';

const templates = (header: string): Templates & { fonts: TemplateFonts } => ({
  header,
  footer: '<span></span>',
  display: true,
  usesUrl: false,
  fonts: { preload: [], families: [[], []] },
});
const request = (fields: Partial<RenderRequestInput> = {}) =>
  parseRenderRequest({ htmlContent: '<p>x</p>', headerHtmlContent: '<div>h</div>', ...fields });

/** A render step that records whether each print had Chromium's templates, and a stamp printer that does as told. */
function steps(printStamp: () => Promise<Uint8Array>, facesFromDocument = false) {
  const printed: boolean[] = [];
  const stampPrints: number[] = [];
  return {
    printed,
    stampPrints,
    render: async (with_: Templates) => {
      printed.push(with_.display);
      return { pdf: new Uint8Array(), pages: 1, bytes: 0, facesFromDocument: facesFromDocument && !with_.display };
    },
    printStamp: (pages: number) => {
      stampPrints.push(pages);
      return printStamp();
    },
  };
}

describe('renderWithStamps', () => {
  const signal = new AbortController().signal;

  it("prints a template's first render with Chromium's templates, and needs no stamp for it", async () => {
    const stamps = createTemplateStamps();
    const step = steps(() => Promise.reject(new Error('not asked')));
    const { stamped } = await renderWithStamps(request(), templates('<div>h</div>'), signal, { stamps, ...step });
    expect([stamped, step.printed, step.stampPrints]).toEqual([false, [true], []]);
  });

  it('renders again with the templates when the stamp could not be printed, and gives them to Chromium from then on', async () => {
    const stamps = createTemplateStamps();
    const step = steps(() => Promise.reject(new Error('the page crashed')));
    for (let render = 0; render < 3; render += 1)
      expect((await renderWithStamps(request(), templates('<div>h</div>'), signal, { stamps, ...step })).stamped).toBe(
        false,
      );
    // Printed with the templates, then without (the stamp failed) and with again, then with only: no render pays twice again.
    expect(step.printed).toEqual([true, false, true, true]);
    expect(step.stampPrints).toEqual([1]);
  });

  it('gives the templates to Chromium for good once a stamp does not fit', async () => {
    const stamps = createTemplateStamps();
    const step = steps(async () => new TextEncoder().encode('not a PDF'));
    for (let render = 0; render < 3; render += 1)
      await renderWithStamps(request(), templates('<div>h</div>'), signal, { stamps, ...step });
    expect(step.printed).toEqual([true, false, true, true]);
    expect(step.stampPrints).toEqual([1]);
  });

  it("gives the templates to Chromium for good once they were printed with the document's own faces", async () => {
    const stamps = createTemplateStamps();
    const step = steps(() => Promise.reject(new Error('not asked')), true);
    for (let render = 0; render < 3; render += 1)
      await renderWithStamps(request(), templates('<div>h</div>'), signal, { stamps, ...step });
    expect(step.printed).toEqual([true, false, true, true]);
    expect(step.stampPrints).toEqual([]);
  });

  it("fails with the caller's cancel, not with a print of the templates", async () => {
    const stamps = createTemplateStamps();
    const controller = new AbortController();
    const step = steps(() => {
      controller.abort(new Error('cancelled'));
      return Promise.reject(new Error('aborted'));
    });
    await renderWithStamps(request(), templates('<div>h</div>'), controller.signal, { stamps, ...step });
    await expect(
      renderWithStamps(request(), templates('<div>h</div>'), controller.signal, { stamps, ...step }),
    ).rejects.toThrow('cancelled');
    expect(step.printed).toEqual([true, false]);
  });
});

describe('stampKey', () => {
  it('is the same for the same templates and paper, and another for other margins', () => {
    const key = stampKey(request(), templates('<div>h</div>'));
    expect(key).toBe(stampKey(request(), templates('<div>h</div>')));
    expect(stampKey(request({ marginTop: '1in' }), templates('<div>h</div>'))).not.toBe(key);
    expect(stampKey(request(), templates('<div>h2</div>'))).not.toBe(key);
    // Stamps are kept per caller: another caller's render of the same templates is not served by this one's.
    expect(stampKey(request(), templates('<div>h</div>'), 'another caller')).not.toBe(key);
  });

  it('is none for templates that print the date, title or URL, have a link, or any letter case of those classes', () => {
    for (const header of [
      '<span class="date"></span>',
      '<b class="x TITLE">',
      '<i class=url>',
      '<a href="https://a.example">a</a>',
      // Chromium takes a <span> in an SVG's <style> for an element, and fills it in.
      '<svg><style><span class="url"></span></style></svg>',
      // A character reference can spell a class.
      '<span class="&#117;rl"></span>',
    ])
      expect(stampKey(request(), templates(header))).toBeUndefined();
    // Searched as text, so even a word in the text costs the stamp; inlined images are not searched.
    expect(stampKey(request(), templates('<span>Due date</span>'))).toBeUndefined();
    expect(stampKey(request(), templates('<img src="data:image/svg+xml;utf8,urltitledate">'))).toBeDefined();
    expect(stampKey(request(), templates('<span class="x">Invoice</span>'))).toBeDefined();
    // As the engine has them: pdfrender's own style sheet first (whose selector names <title>) is not searched, the caller's part is.
    const built = (html: string) => templates(buildTemplate(html, { left: 0.4, right: 0.4 }));
    expect(stampKey(request(), built('<span class="x">Invoice</span>'))).toBeDefined();
    expect(stampKey(request(), built('<style>img{content:url("")}</style><img src="data:,">'))).toBeDefined();
    expect(stampKey(request(), built('<style>#header, #footer { }</style><i class=url>'))).toBeUndefined();
  });

  it('is none where page numbers or page sizes may not be those of a blank document', () => {
    for (const fields of [{ pageRanges: '1' }, { singlePage: true }, { preferCssPageSize: true }])
      expect(stampKey(request(fields), templates('<div>h</div>'))).toBeUndefined();
  });
});
