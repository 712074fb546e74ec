/**
 * The XMP metadata packet a PDF carries in its catalog's /Metadata stream: the document's facts in
 * the Dublin Core, PDF and XMP schemas (which PDF/A requires to agree with the Info dictionary), the
 * PDF/A and PDF/UA identification, and custom schemas a PDF/A file must describe
 * (pdfaExtension:schemas) before it may use them. A pure function of its facts: no PDF library here.
 */

/** A custom schema a PDF/A file must describe in pdfaExtension:schemas (Factur-X's fx: schema, say). */
export interface XmpExtension {
  namespace: string;
  prefix: string;
  /** Its human name. */
  schema: string;
  properties: XmpExtensionProperty[];
}

/** One property of an extension schema: its description in pdfaExtension:schemas, and its value. */
export interface XmpExtensionProperty {
  name: string;
  valueType: 'Text' | 'Integer';
  category: 'external' | 'internal';
  description: string;
  value: string;
}

export interface XmpFacts {
  title?: string;
  author?: string;
  subject?: string;
  keywords?: string;
  /** xmp:CreatorTool: the Info dictionary's /Creator. */
  creator?: string;
  producer?: string;
  creationDate?: Date;
  modifyDate?: Date;
  /** dc:language, and a language-tagged copy of dc:title beside its x-default. */
  lang?: string;
  /** xmpMM:DocumentID, in `uuid:` form. */
  documentId?: string;
  pdfa?: { part: 2 | 3; conformance: 'B' };
  pdfua?: 1;
  extensions?: XmpExtension[];
}

const namespaces = {
  x: 'adobe:ns:meta/',
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  dc: 'http://purl.org/dc/elements/1.1/',
  pdf: 'http://ns.adobe.com/pdf/1.3/',
  xmp: 'http://ns.adobe.com/xap/1.0/',
  xmpMM: 'http://ns.adobe.com/xap/1.0/mm/',
  pdfaid: 'http://www.aiim.org/pdfa/ns/id/',
  pdfuaid: 'http://www.aiim.org/pdfua/ns/id/',
  pdfaExtension: 'http://www.aiim.org/pdfa/ns/extension/',
  pdfaSchema: 'http://www.aiim.org/pdfa/ns/schema#',
  pdfaProperty: 'http://www.aiim.org/pdfa/ns/property#',
} as const;

/** PDF/UA's identification is not among PDF/A's predefined schemas, so a PDF/A file that carries it must describe it. */
const pdfuaSchema = (part: number): XmpExtension => ({
  namespace: namespaces.pdfuaid,
  prefix: 'pdfuaid',
  schema: 'PDF/UA Universal Accessibility Schema',
  properties: [
    {
      name: 'part',
      valueType: 'Integer',
      category: 'internal',
      description: 'Indicates, which part of ISO 14289 standard is followed',
      value: String(part),
    },
  ],
});

// XML 1.0 cannot carry these even as character references, so they are dropped rather than escaped.
const notXml =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `value` safe as XML text or inside a double-quoted attribute. */
export const escapeXml = (value: string): string =>
  value.replace(notXml, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** `date` in XMP's form, UTC to the second (2026-11-26T20:24:25Z): the precision and zone of the Info dictionary's D: dates pdf-lib writes, so the two agree. */
export const xmpDate = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

const element = (name: string, value: string) => `<${name}>${escapeXml(value)}</${name}>`;

const languageAlternative = (name: string, value: string, lang?: string) =>
  `<${name}><rdf:Alt><rdf:li xml:lang="x-default">${escapeXml(value)}</rdf:li>` +
  (lang ? `<rdf:li xml:lang="${escapeXml(lang)}">${escapeXml(value)}</rdf:li>` : '') +
  `</rdf:Alt></${name}>`;

/** One rdf:Description for one namespace, or nothing when it has no properties. */
const description = (prefix: string, namespace: string, properties: (string | false | undefined)[]) => {
  const present = properties.filter((property): property is string => Boolean(property));
  if (present.length === 0) return '';
  return `<rdf:Description rdf:about="" xmlns:${prefix}="${escapeXml(namespace)}">\n${present.map((p) => `  ${p}\n`).join('')}</rdf:Description>\n`;
};

const schemaDescription = (extension: XmpExtension) =>
  '<rdf:li rdf:parseType="Resource">' +
  element('pdfaSchema:schema', extension.schema) +
  element('pdfaSchema:namespaceURI', extension.namespace) +
  element('pdfaSchema:prefix', extension.prefix) +
  '<pdfaSchema:property><rdf:Seq>' +
  extension.properties
    .map(
      (property) =>
        '<rdf:li rdf:parseType="Resource">' +
        element('pdfaProperty:name', property.name) +
        element('pdfaProperty:valueType', property.valueType) +
        element('pdfaProperty:category', property.category) +
        element('pdfaProperty:description', property.description) +
        '</rdf:li>',
    )
    .join('') +
  '</rdf:Seq></pdfaSchema:property></rdf:li>';

const extensionSchemas = (extensions: XmpExtension[]) =>
  extensions.length === 0
    ? ''
    : `<rdf:Description rdf:about="" xmlns:pdfaExtension="${namespaces.pdfaExtension}" ` +
      `xmlns:pdfaSchema="${namespaces.pdfaSchema}" xmlns:pdfaProperty="${namespaces.pdfaProperty}">\n` +
      `  <pdfaExtension:schemas><rdf:Bag>${extensions.map(schemaDescription).join('')}</rdf:Bag></pdfaExtension:schemas>\n` +
      '</rdf:Description>\n';

/** A complete XMP packet (xpacket wrapper, x:xmpmeta, rdf:RDF) stating `facts`, every value XML-escaped. */
export function xmpPacket(facts: XmpFacts): string {
  const custom = facts.extensions ?? [];
  const described = facts.pdfa && facts.pdfua ? [pdfuaSchema(facts.pdfua), ...custom] : custom;
  const body = [
    description('dc', namespaces.dc, [
      element('dc:format', 'application/pdf'),
      facts.title !== undefined && languageAlternative('dc:title', facts.title, facts.lang),
      facts.author !== undefined && `<dc:creator><rdf:Seq>${element('rdf:li', facts.author)}</rdf:Seq></dc:creator>`,
      facts.subject !== undefined && languageAlternative('dc:description', facts.subject),
      facts.lang !== undefined && `<dc:language><rdf:Bag>${element('rdf:li', facts.lang)}</rdf:Bag></dc:language>`,
    ]),
    description('pdf', namespaces.pdf, [
      facts.producer !== undefined && element('pdf:Producer', facts.producer),
      facts.keywords !== undefined && element('pdf:Keywords', facts.keywords),
    ]),
    description('xmp', namespaces.xmp, [
      facts.creator !== undefined && element('xmp:CreatorTool', facts.creator),
      facts.creationDate && element('xmp:CreateDate', xmpDate(facts.creationDate)),
      facts.modifyDate && element('xmp:ModifyDate', xmpDate(facts.modifyDate)),
      facts.modifyDate && element('xmp:MetadataDate', xmpDate(facts.modifyDate)),
    ]),
    description('xmpMM', namespaces.xmpMM, [
      facts.documentId !== undefined && element('xmpMM:DocumentID', facts.documentId),
    ]),
    description('pdfaid', namespaces.pdfaid, [
      facts.pdfa && element('pdfaid:part', String(facts.pdfa.part)),
      facts.pdfa && element('pdfaid:conformance', facts.pdfa.conformance),
    ]),
    description('pdfuaid', namespaces.pdfuaid, [facts.pdfua && element('pdfuaid:part', String(facts.pdfua))]),
    ...custom.map((extension) =>
      description(
        extension.prefix,
        extension.namespace,
        extension.properties.map((property) => element(`${extension.prefix}:${property.name}`, property.value)),
      ),
    ),
    extensionSchemas(described),
  ].join('');
  return (
    '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>\n' +
    `<x:xmpmeta xmlns:x="${namespaces.x}">\n<rdf:RDF xmlns:rdf="${namespaces.rdf}">\n` +
    body +
    '</rdf:RDF>\n</x:xmpmeta>\n<?xpacket end="w"?>'
  );
}
