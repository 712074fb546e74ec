/**
 * A render request's Factur-X (ZUGFeRD 2.x) fields: the caller's CII invoice XML, the profile it is
 * written to and the name it is embedded under. Flat fields rather than one object, so that each is
 * a form field and a CLI flag of its own, and the XML can be uploaded as a multipart file part
 * (read-body.ts reads file parts as text) instead of a string of JSON escaped into a form field.
 * The XML itself is checked by the engine (engine/document/cii-invoice.ts), where its parser lives.
 */
import { z } from 'zod';

/** The profiles (conformance levels) as the Factur-X XMP names them in fx:ConformanceLevel; XRECHNUNG is ZUGFeRD 2.1.1+'s. */
export const facturXProfiles = ['MINIMUM', 'BASIC WL', 'BASIC', 'EN 16931', 'EXTENDED', 'XRECHNUNG'] as const;
export type FacturXProfile = (typeof facturXProfiles)[number];

/** The embedded file's names the specifications use: Factur-X 1.0 and ZUGFeRD 2.1+, ZUGFeRD 2.0, XRechnung in ZUGFeRD. */
export const facturXFileNames = ['factur-x.xml', 'zugferd-invoice.xml', 'xrechnung.xml'] as const;
export type FacturXFileName = (typeof facturXFileNames)[number];

/** The largest invoice XML (UTF-8 bytes; past it: 413): room for documents embedded in it as base64 (EXTENDED). */
export const maxFacturXBytes = 5 * 1024 * 1024;

/**
 * The most tags ("<") an invoice XML may hold (past it: 413). The check parses it on the event loop
 * in one go, at about 5 µs a tag here whatever its bytes (5 MB in one base64 note: 40 ms; 61 000
 * tags: 390 ms), so it is bounded by tags: 40 000 is an EN 16931 invoice of about 1 300 lines.
 */
export const maxFacturXTags = 40_000;

// "en16931", "EN_16931", "basic-wl" and "BasicWL" all name a profile: spaces, "-" and "_" aside, in any case.
const profileKey = (name: string) => name.replace(/[\s_-]/g, '').toUpperCase();
const profileList = facturXProfiles.join(', ');

/**
 * One of `names`, matched by `key` and given as its own spelling; absent or empty (a form's unset
 * field) is null. An enum after the matching step, so the OpenAPI document (and typed clients) list
 * the names rather than any string.
 */
function oneOf<N extends string>(names: readonly [N, ...N[]], key: (name: string) => string) {
  const byKey = new Map(names.map((name) => [key(name), name]));
  const list = names.join(', ');
  const named = z.preprocess(
    (value) => (typeof value === 'string' ? (byKey.get(key(value)) ?? value) : value),
    z.enum(names, {
      error: (issue) =>
        typeof issue.input === 'string'
          ? `must be one of ${list} (got ${JSON.stringify(issue.input.slice(0, 100))})`
          : `must be a string, one of ${list}`,
    }),
  );
  return z.preprocess((value) => (value === '' ? null : value), named.nullish()).transform((value) => value ?? null);
}

/** The request fields of a Factur-X invoice. */
export const facturXFields = {
  facturX: z
    .string({ error: 'must be a string: the invoice XML (or, in a multipart form, the uploaded XML file)' })
    .nullish()
    .transform((value) => (value ? value : null))
    .describe(
      `invoice XML (UN/CEFACT CII, EN 16931 data the caller writes) that makes the PDF a Factur-X / ZUGFeRD invoice; embedded in a PDF/A-3b with the Factur-X XMP; checked to be well formed (no DOCTYPE), CII, and of facturXProfile, not for its business rules; at most ${maxFacturXBytes / 1024 / 1024} MB and ${maxFacturXTags} tags; in a multipart form it may be an uploaded file part`,
    ),
  facturXProfile: oneOf(facturXProfiles, profileKey).describe(
    `the Factur-X profile facturX is written to, which its guideline ID must match: ${profileList} (XRECHNUNG: an XRechnung CII invoice in ZUGFeRD); required with facturX`,
  ),
  facturXFileName: oneOf(facturXFileNames, (name) => name).describe(
    'the name the invoice XML is embedded under: factur-x.xml (Factur-X, ZUGFeRD 2.1 and later; the default), zugferd-invoice.xml (ZUGFeRD 2.0 readers), xrechnung.xml (the default for XRECHNUNG)',
  ),
};

const given = (value: unknown) => value !== undefined && value !== null && value !== '';

/**
 * The Factur-X fields go together: the XML needs its profile, and a profile or file name needs the
 * XML. A Factur-X invoice is a PDF/A-3b, so PDF/A-2b is refused with it. Judged on what was sent, so
 * reported with every other bad field.
 */
export function checkFacturXFields(
  sent: {
    facturX?: unknown;
    facturXProfile?: unknown;
    facturXFileName?: unknown;
    pdfa?: unknown;
  },
  ctx: z.RefinementCtx,
): void {
  if (!given(sent.facturX)) {
    for (const field of ['facturXProfile', 'facturXFileName'] as const)
      if (given(sent[field]))
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: 'goes with facturX (the invoice XML), which was not given',
          input: sent[field],
        });
    return;
  }
  if (!given(sent.facturXProfile))
    ctx.addIssue({
      code: 'custom',
      path: ['facturXProfile'],
      message: `is required with facturX: one of ${profileList}, the profile the XML's guideline ID names`,
      input: sent.facturXProfile,
    });
  if (typeof sent.pdfa === 'string' && /^pdf\/a-?2b$/i.test(sent.pdfa.trim()))
    ctx.addIssue({
      code: 'custom',
      path: ['pdfa'],
      message:
        'cannot be PDF/A-2b with facturX: a Factur-X invoice is a PDF/A-3b, which may embed its XML (leave pdfa out, or ask for "PDF/A-3b")',
      input: sent.pdfa,
    });
}
