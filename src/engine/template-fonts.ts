/**
 * Web fonts in header and footer templates, once the document has loaded: the families the
 * templates name are looked up among the document's `@font-face` rules (pages/page-fonts.ts), their
 * files fetched and written into the templates (templates/body-faces.ts), and every font the
 * templates then carry is loaded into the page, where Chromium finds it when it draws them. All of
 * it on the page the render holds, within the render's deadline.
 */
import { fetchMany, type FetchManyOptions } from './templates/fetch-many.js';
import { ByteBudget } from './templates/byte-budget.js';
import { bodyFacesForTemplates, familyName, maxBodyFaceBytes, maxBodyFaces } from './templates/body-faces.js';
import type { NetworkReport } from './network-report.js';
import { forgetFonts, loadFonts, parseFontFaces, readFontFaces } from './pages/page-fonts.js';
import type { Slot } from './pages/page-pool.js';
import type { Templates } from './pages/print-document.js';

/** What the templates need of fonts: data: URLs they carry, and the families each names (header, footer, page 1's). */
export interface TemplateFonts {
  preload: string[];
  families: string[][];
}

/** Style sheets of other origins (whose rules the page may not read) fetched again for their @font-face rules, and their bytes together. */
const maxOpaqueSheets = 8;
const maxOpaqueSheetBytes = 2 * 1024 * 1024;

export interface FontContext {
  /** How the fonts and style sheets are fetched: as the templates' images are, under the render's deadline. */
  fetch: FetchManyOptions;
  pending: Set<string>;
  warnings: string[];
  issues: NetworkReport;
}

/** Whether the templates need anything of the page for their fonts. */
export const needsFonts = (fonts: TemplateFonts): boolean =>
  fonts.preload.length > 0 || fonts.families.some((names) => names.length > 0);

/**
 * The steps of one render that put the templates' fonts in place: `beforePrint` (once the
 * document is ready) adds the document's faces the templates name to them and loads every font
 * they carry into the page; `after` (once printed) lets go of the fonts.
 */
export function templateFontSteps(
  slot: Slot,
  fonts: TemplateFonts,
  context: FontContext,
): { beforePrint: (templates: Templates) => Promise<Templates>; after: () => Promise<void> } {
  let held = false;
  return {
    beforePrint: async (templates) => {
      const ready = await withFonts(slot, fonts, context, templates);
      held = true;
      return ready;
    },
    after: async () => {
      if (held) await forgetFonts(slot).catch(() => undefined);
    },
  };
}

async function withFonts(
  slot: Slot,
  fonts: TemplateFonts,
  context: FontContext,
  templates: Templates,
): Promise<Templates> {
  const { fetch, pending, warnings, issues } = context;
  const waiting = 'the header and footer fonts';
  pending.add(waiting);
  let ready = templates;
  const preload = [...fonts.preload];
  try {
    const wanted = [...new Set(fonts.families.flat())];
    if (wanted.length > 0) {
      const maxChars = Math.ceil((maxBodyFaceBytes * 4) / 3);
      const { faces, opaque } = await readFontFaces(slot, wanted, maxChars, maxBodyFaces);
      const found = new Set(faces.map((face) => familyName(face.family)));
      if (opaque.length > 0 && wanted.some((name) => !found.has(name))) {
        const sheets = await fetchMany(
          opaque.slice(0, maxOpaqueSheets),
          new ByteBudget(maxOpaqueSheetBytes),
          fetch,
          () => undefined, // the document's own report has them
        ).catch((error: unknown) => {
          if (fetch.signal.aborted) throw error;
          return new Map();
        });
        const texts = [...sheets]
          .filter(([, { contentType }]) => contentType.split(';')[0]!.trim().toLowerCase() === 'text/css')
          .map(([href, { bytes }]) => ({ href, text: new TextDecoder().decode(bytes) }));
        if (texts.length > 0) faces.push(...(await parseFontFaces(slot, texts, wanted, maxChars, maxBodyFaces)).faces);
      }
      const body = await bodyFacesForTemplates(faces, fonts.families, fetch, (list, issue) => issues[list].push(issue));
      for (const warning of body.warnings) if (!warnings.includes(warning)) warnings.push(warning);
      preload.push(...body.fonts);
      ready = withStyles(templates, body.styles);
    }
    if (preload.length > 0) {
      const loaded = await loadFonts(slot, preload);
      const failed = loaded.filter((ok) => !ok).length;
      const warning = `${failed} of the header and footer fonts could not be read as fonts: their text prints in the fallback font`;
      if (failed > 0 && !warnings.includes(warning)) warnings.push(warning);
    }
  } finally {
    pending.delete(waiting);
  }
  return ready;
}

// The templates with `styles` (by side: header, footer, page 1's header and footer) put before them.
function withStyles(templates: Templates, styles: string[]): Templates {
  const [header = '', footer = '', firstHeader = '', firstFooter = ''] = styles;
  return {
    ...templates,
    header: header + templates.header,
    footer: footer + templates.footer,
    ...(templates.firstPage && {
      firstPage: {
        ...templates.firstPage,
        header: firstHeader + templates.firstPage.header,
        footer: firstFooter + templates.firstPage.footer,
      },
    }),
  };
}
