/**
 * The render-request flags of `pdfrender render`. Their help text comes from the request schema,
 * and their values go through it unchanged, so the CLI validates exactly as the HTTP API does.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Option } from 'commander';
import { flagName } from '../../render-settings.js';
import { PdfRenderError } from '../../errors.js';
import { findPaperFormat, paperFormats } from '../../paper-formats.js';
import { renderRequestFields } from '../../request.js';
import type { TemplateUrls } from '../../engine/prepare-templates.js';
import { attachFiles, attachOption, attachmentsFromFlags } from './attach-flag.js';

type Field = keyof typeof renderRequestFields;

interface FlagSpec {
  /** Commander's flag syntax. */
  flags: string;
  /** The request field it sets; its description is the flag's help. */
  field: Field;
  /** `file`: the value is a path whose contents become the field. */
  kind: 'switch' | 'value' | 'file';
  /** A template file: its relative URLs resolve against its own folder (TemplateUrls). */
  template?: keyof TemplateUrls;
  /** A --no- switch: sets its field false (commander keeps one option value for it and its positive twin). */
  negates?: true;
}

const specs: FlagSpec[] = [
  { flags: '--header <file>', field: 'headerHtmlContent', kind: 'file', template: 'header' },
  { flags: '--footer <file>', field: 'footerHtmlContent', kind: 'file', template: 'footer' },
  {
    flags: '--first-page-header <file>',
    field: 'firstPageHeaderHtmlContent',
    kind: 'file',
    template: 'firstPageHeader',
  },
  {
    flags: '--first-page-footer <file>',
    field: 'firstPageFooterHtmlContent',
    kind: 'file',
    template: 'firstPageFooter',
  },
  { flags: '--landscape', field: 'landscape', kind: 'switch' },
  { flags: '--paper-width <length>', field: 'paperWidth', kind: 'value' },
  { flags: '--paper-height <length>', field: 'paperHeight', kind: 'value' },
  { flags: '--margin-top <length>', field: 'marginTop', kind: 'value' },
  { flags: '--margin-right <length>', field: 'marginRight', kind: 'value' },
  { flags: '--margin-bottom <length>', field: 'marginBottom', kind: 'value' },
  { flags: '--margin-left <length>', field: 'marginLeft', kind: 'value' },
  { flags: '--print-background', field: 'printBackground', kind: 'switch' },
  { flags: '--scale <number>', field: 'scale', kind: 'value' },
  { flags: '--tagged', field: 'tagged', kind: 'switch' },
  { flags: '--no-tagged', field: 'tagged', kind: 'switch', negates: true },
  { flags: '--outline', field: 'outline', kind: 'switch' },
  { flags: '--no-outline', field: 'outline', kind: 'switch', negates: true },
  { flags: '--lang <tag>', field: 'lang', kind: 'value' },
  { flags: '--wait-for-selector <css>', field: 'waitForSelector', kind: 'value' },
  { flags: '--wait-for-expression <js>', field: 'waitForExpression', kind: 'value' },
  { flags: '--wait-delay <duration>', field: 'waitDelay', kind: 'value' },
  { flags: '--wait-for-network-idle', field: 'waitForNetworkIdle', kind: 'switch' },
  { flags: '--prefer-css-page-size', field: 'preferCssPageSize', kind: 'switch' },
  { flags: '--single-page', field: 'singlePage', kind: 'switch' },
  { flags: '--emulated-media-type <type>', field: 'emulatedMediaType', kind: 'value' },
  { flags: '--emulated-media-features <json>', field: 'emulatedMediaFeatures', kind: 'value' },
  { flags: '--user-agent <string>', field: 'userAgent', kind: 'value' },
  { flags: '--cookies <json>', field: 'cookies', kind: 'value' },
  { flags: '--extra-http-headers <json>', field: 'extraHttpHeaders', kind: 'value' },
  { flags: '--extra-http-headers-origins <origins>', field: 'extraHttpHeadersOrigins', kind: 'value' },
  { flags: '--page-ranges <ranges>', field: 'pageRanges', kind: 'value' },
  { flags: '--metadata <json>', field: 'metadata', kind: 'value' },
  { flags: '--pdfa <level>', field: 'pdfa', kind: 'value' },
  { flags: '--factur-x <invoice.xml>', field: 'facturX', kind: 'file' },
  { flags: '--factur-x-profile <profile>', field: 'facturXProfile', kind: 'value' },
  { flags: '--factur-x-file-name <name>', field: 'facturXFileName', kind: 'value' },
];

const marginFields = ['marginTop', 'marginRight', 'marginBottom', 'marginLeft'] as const;

/** Commander option key of a spec ("--paper-width <length>" -> "paperWidth"). */
function keyOf(spec: FlagSpec): string {
  return new Option(spec.flags).attributeName();
}

/** Commander options for every request field, plus the --margin and --format shorthands. */
export function requestOptions(): Option[] {
  const formats = Object.keys(paperFormats).join(', ');
  // The shorthands are listed in help just before the flags they stand for.
  const shorthands: Partial<Record<Field, Option>> = {
    paperWidth: new Option(
      '--format <name>',
      `paper size by name: ${formats} (--paper-width/--paper-height override it)`,
    ),
    marginTop: new Option('--margin <length>', 'all four margins at once (the --margin-* flags override it)'),
  };
  return specs.flatMap((spec) => {
    const help = renderRequestFields[spec.field].description ?? spec.field;
    const option = new Option(
      spec.flags,
      spec.kind === 'file'
        ? `read the ${help.replace(/;.*$/, '')} from a file`
        : spec.negates
          ? `do not ${help.replace(/[;:].*$/, '').replace(/ \(default \w+\)$/, '')}`
          : help,
    );
    const shorthand = shorthands[spec.field];
    // --attach reads files into `attachments`, its own syntax (attach-flag.ts); listed beside --pdfa.
    if (spec.field === 'pdfa') return [option, attachOption()];
    return shorthand ? [shorthand, option] : [option];
  });
}

/** The files the flags name (--header and the like), as given: what `--watch` watches besides the inputs. */
export function flagFiles(options: Record<string, unknown>): string[] {
  return specs
    .filter((spec) => spec.kind === 'file' && typeof options[keyOf(spec)] === 'string')
    .map((spec) => options[keyOf(spec)] as string)
    .concat(attachFiles(options.attach));
}

/**
 * The request fields given by flags, with files read (relative to `cwd`); `sources` says which flag
 * set each field, `templateUrls` the file: URLs of the template files read.
 */
export async function requestFieldsFromFlags(
  options: Record<string, unknown>,
  cwd: string,
): Promise<{
  fields: Record<string, unknown>;
  sources: Record<string, string>;
  templateUrls: TemplateUrls;
}> {
  const fields: Record<string, unknown> = {};
  const sources: Record<string, string> = {};
  const templateUrls: TemplateUrls = {};
  const set = (field: string, value: unknown, flag: string) => {
    fields[field] = value;
    sources[field] = flag;
  };
  if (typeof options.format === 'string') {
    const format = findPaperFormat(options.format);
    // The sizes, which --paper-width and --paper-height override; an unknown name goes to the schema
    // as the format field, which names it beside every other bad field.
    if (format) {
      set('paperWidth', format.paperWidth, '--format');
      set('paperHeight', format.paperHeight, '--format');
    } else set('format', options.format, '--format');
  }
  if (options.margin !== undefined) for (const field of marginFields) set(field, options.margin, '--margin');
  for (const spec of specs) {
    const value = options[keyOf(spec)];
    // A switch and its --no- twin share one value: the one that matches it names it.
    if (value === undefined || (spec.kind === 'switch' && value !== !spec.negates)) continue;
    const flag = flagName(spec.flags);
    const path = resolve(cwd, String(value));
    set(spec.field, spec.kind === 'file' ? await readFlagFile(flag, path, String(value)) : value, flag);
    if (spec.template) templateUrls[spec.template] = pathToFileURL(path).href;
  }
  if (Array.isArray(options.attach))
    set('attachments', await attachmentsFromFlags(options.attach as string[], cwd), '--attach');
  return { fields, sources, templateUrls };
}

async function readFlagFile(flag: string, absolute: string, path: string): Promise<string> {
  try {
    return await readFile(absolute, 'utf8');
  } catch (error) {
    throw new PdfRenderError(
      'USAGE',
      `${flag}: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      { cause: error },
    );
  }
}
