/**
 * The checks a Factur-X invoice's XML passes before it is embedded: well formed, without a DOCTYPE,
 * a UN/CEFACT CII invoice (D16B, as Factur-X 1.0 and ZUGFeRD 2.x use), and of the profile the
 * request names, read from its guideline ID with namespaces resolved (any prefix may stand for
 * them). Not the invoice's business rules (EN 16931's schematron): that is the caller's validator's job.
 */
import type { Element } from '@xmldom/xmldom';
import { onFirstUse } from '../../lazy-module.js';
import type { FacturXProfile } from '../../request-factur-x.js';

// Loaded when an invoice is checked, not with the engine that every render starts: bundled into
// the CLI, xmldom took 15.5 ms to load (its code compiled, its entity tables built) on every cold
// start.
const loadXmldom = onFirstUse<typeof import('@xmldom/xmldom')>('@xmldom/xmldom');

const ciiNamespace = 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100';
const ramNamespace = 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100';
const ublNamespace = /^urn:oasis:names:specification:ubl:schema:xsd:(Invoice|CreditNote)-2$/;

// XRechnung's CIUS (3.x, and 2.x's older spelling), alone or with its extension: EN 16931 data
// with Germany's rules on top, which ZUGFeRD 2.1.1+ embeds as its own XRECHNUNG profile.
const xrechnungId =
  /^urn:cen\.eu:en16931:2017#compliant#urn:(xeinkauf\.de:kosit|xoev-de:kosit:standard):xrechnung_\d+\.\d+(#conformant#urn:xeinkauf\.de:kosit:extension:xrechnung_\d+\.\d+)?$/;

/** Each profile's guideline ID (BT-24), as Factur-X 1.0.07 / ZUGFeRD 2.3 give them. */
const guidelineIds: Record<Exclude<FacturXProfile, 'XRECHNUNG'>, string> = {
  MINIMUM: 'urn:factur-x.eu:1p0:minimum',
  'BASIC WL': 'urn:factur-x.eu:1p0:basicwl',
  BASIC: 'urn:cen.eu:en16931:2017#compliant#urn:factur-x.eu:1p0:basic',
  'EN 16931': 'urn:cen.eu:en16931:2017',
  EXTENDED: 'urn:cen.eu:en16931:2017#conformant#urn:factur-x.eu:1p0:extended',
};

/** The profile a guideline ID names, or null for one that is no Factur-X / ZUGFeRD 2.1+ profile's. */
export function profileOfGuidelineId(id: string): FacturXProfile | null {
  if (xrechnungId.test(id)) return 'XRECHNUNG';
  const found = Object.entries(guidelineIds).find(([, known]) => known === id);
  return found ? (found[0] as FacturXProfile) : null;
}

/** What is wrong with an invoice XML, and which request field to name. */
export interface CiiProblem {
  field: 'facturX' | 'facturXProfile';
  message: string;
}

const guidelinePath = 'rsm:ExchangedDocumentContext/ram:GuidelineSpecifiedDocumentContextParameter/ram:ID';

/** The problem with `xml` as a Factur-X invoice of `profile`, or null when it passes. */
export function ciiInvoiceProblem(xml: string, profile: FacturXProfile): CiiProblem | null {
  const invoice = (message: string): CiiProblem => ({ field: 'facturX', message });
  // Refused before parsing: no DTD is read, so no entity is ever expanded (xmldom expands none, but
  // nothing here needs one, and a DOCTYPE in an invoice is a sign of an attack or of the wrong file).
  const doctype = doctypeAt(xml);
  if (doctype !== -1) return invoice(`must not have a DOCTYPE (line ${lineAt(xml, doctype)}): CII invoices have none`);
  const encoding = /^\uFEFF?<\?xml[^>]*\bencoding\s*=\s*["']([^"']*)["']/.exec(xml)?.[1];
  if (encoding && !/^utf-?8$/i.test(encoding))
    return invoice(
      `declares encoding="${encoding.slice(0, 40)}": Factur-X XML is UTF-8, and it is embedded as UTF-8 text (convert it and its declaration)`,
    );
  // A byte-order mark is allowed before the declaration (and stays in the bytes embedded); the parser refuses it.
  const parsed = parseXml(xml.replace(/^\uFEFF/, ''));
  if ('problem' in parsed) return invoice(parsed.problem);
  const root = parsed.root;
  if (root.localName !== 'CrossIndustryInvoice' || root.namespaceURI !== ciiNamespace)
    return invoice(
      `must be a UN/CEFACT CII invoice: root element CrossIndustryInvoice in namespace ${ciiNamespace}; got ${root.localName} in ${root.namespaceURI ? `namespace ${root.namespaceURI}` : 'no namespace'}${ublNamespace.test(root.namespaceURI ?? '') ? ' (UBL, which Factur-X does not embed)' : ''}`,
    );
  const idElement = childElement(
    childElement(
      childElement(root, ciiNamespace, 'ExchangedDocumentContext'),
      ramNamespace,
      'GuidelineSpecifiedDocumentContextParameter',
    ),
    ramNamespace,
    'ID',
  );
  if (!idElement) return invoice(`has no guideline ID (${guidelinePath}), which names its profile`);
  const id = (idElement.textContent ?? '').trim();
  const found = profileOfGuidelineId(id);
  if (found === profile) return null;
  const expected = profile === 'XRECHNUNG' ? 'an XRechnung CIUS ID' : `"${guidelineIds[profile]}"`;
  return {
    field: 'facturXProfile',
    message: `is ${profile}, but the XML's guideline ID (${guidelinePath}) is "${id.slice(0, 200)}", ${found ? `the ${found} profile's` : 'no Factur-X profile'} (${profile} is ${expected})`,
  };
}

/** The document element of `xml`, or the first problem the parser met, with its line. */
function parseXml(xml: string): { root: Element } | { problem: string } {
  let first: string | undefined;
  try {
    // Every level stops the parse: a warning (an attribute without quotes) is not well formed either.
    const document = new (loadXmldom().DOMParser)({
      onError: (_level, message) => {
        first ??= message;
        throw new Error(message);
      },
    }).parseFromString(xml, 'text/xml');
    if (!document.documentElement) return { problem: 'is not XML: it has no root element' };
    return { root: document.documentElement };
  } catch (error) {
    const line = (error as { locator?: { lineNumber?: number } }).locator?.lineNumber;
    const where = line ? ` (line ${line})` : '';
    return { problem: `is not well-formed XML${where}: ${(first ?? (error as Error).message).slice(0, 300)}` };
  }
}

/** The first child element of `parent` with this namespace and local name. */
function childElement(parent: Element | null, namespace: string, localName: string): Element | null {
  for (let node = parent?.firstChild ?? null; node; node = node.nextSibling)
    if (node.nodeType === node.ELEMENT_NODE) {
      const element = node as Element;
      if (element.localName === localName && element.namespaceURI === namespace) return element;
    }
  return null;
}

/**
 * Where the prolog's DOCTYPE starts, or -1: past a byte-order mark, white space, processing
 * instructions and comments, where XML allows one (the text "<!DOCTYPE" in a comment or a note later
 * on is no DOCTYPE). Linear: each step moves past what it read.
 */
function doctypeAt(xml: string): number {
  let at = xml.startsWith('\uFEFF') ? 1 : 0;
  for (;;) {
    while (at < xml.length && ' \t\r\n'.includes(xml[at]!)) at += 1;
    const close = xml.startsWith('<?', at) ? '?>' : xml.startsWith('<!--', at) ? '-->' : null;
    if (close === null) return xml.startsWith('<!DOCTYPE', at) ? at : -1;
    const end = xml.indexOf(close, at);
    if (end === -1) return -1;
    at = end + close.length;
  }
}

/** The 1-based line of a character index. */
const lineAt = (text: string, index: number) => text.slice(0, index).split('\n').length;
