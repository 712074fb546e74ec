/**
 * What the playground page edits, read off the render-request schema, so a field added to the
 * schema shows up in the page with its help text and default, and no field name is written twice.
 */
import { z } from 'zod';
import { paperFormats } from '../../paper-formats.js';
import { renderRequestFields } from '../../request.js';

type FieldName = keyof typeof renderRequestFields;

/** One request field as the page shows it. */
export interface PlaygroundField {
  name: string;
  description: string;
  /** A checkbox, a list of choices, or text (HTML, a length, a number...). */
  kind: 'switch' | 'choice' | 'text';
  /** The schema's default (what an empty control means), when it has one. */
  default?: unknown;
  choices?: string[];
  /** Numeric text is sent as a number (scale 0.8 rather than "0.8"). */
  numeric: boolean;
  /** HTML: a text area rather than a line. */
  multiline: boolean;
}

/** Everything the page is built from. */
export interface PlaygroundSetup {
  /** The document, header and footer: the page's own editors, in this order. */
  editors: PlaygroundField[];
  /** Every other field but url (which would replace the document), as form controls. */
  options: PlaygroundField[];
  /** Named paper sizes that fill in paperWidth and paperHeight, as `pdfrender render --format` has them. */
  formats: Record<string, Record<string, string>>;
  /** Whether the server wants an API key (the page then asks for one). */
  auth: boolean;
  /** A document to start from, header and footer included. */
  sample: Record<string, string>;
}

const editorNames = ['htmlContent', 'headerHtmlContent', 'footerHtmlContent'] as const satisfies readonly FieldName[];
// format has its own list beside the paper fields, which fills them in (a field of its own would conflict with them).
const leftOut: readonly FieldName[] = [...editorNames, 'url', 'format', 'assets'];

const sample = {
  htmlContent: `<!doctype html>
<html>
<head>
  <style>
    body { font-family: sans-serif; color: #222; }
    h1 { color: #1a4d8f; }
  </style>
</head>
<body>
  <h1>Hello from pdfrender</h1>
  <p>Edit this HTML, the header, the footer or the options: the PDF beside it follows.</p>
</body>
</html>
`,
  footerHtmlContent:
    '<div style="font-size: 9px; width: 100%; text-align: center;">page <span class="pageNumber"></span> of <span class="totalPages"></span></div>',
} satisfies Partial<Record<FieldName, string>>;

interface JsonSchema {
  description?: string;
  default?: unknown;
  type?: string | string[];
  enum?: string[];
  anyOf?: JsonSchema[];
}

// The JSON types a schema takes, through unions.
function typesOf(schema: JsonSchema): string[] {
  return [schema.type ?? [], ...(schema.anyOf ?? []).map(typesOf)].flat();
}

function describeField(name: string, schema: z.ZodType): PlaygroundField {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const types = typesOf(json);
  return {
    name,
    description: json.description ?? '',
    kind: json.enum ? 'choice' : types.includes('boolean') ? 'switch' : 'text',
    ...('default' in json && { default: json.default }),
    ...(json.enum && { choices: json.enum }),
    numeric: types.includes('number'),
    multiline: /htmlContent$/i.test(name),
  };
}

/** The page's setup: its editors and options from the schema; `auth` when the server has API keys. */
export function playgroundSetup(auth: boolean): PlaygroundSetup {
  const fields = Object.entries(renderRequestFields) as Array<[FieldName, z.ZodType]>;
  return {
    editors: editorNames.map((name) => describeField(name, renderRequestFields[name])),
    options: fields.filter(([name]) => !leftOut.includes(name)).map(([name, schema]) => describeField(name, schema)),
    formats: paperFormats,
    auth,
    sample,
  };
}
