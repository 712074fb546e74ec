/**
 * The documentation's commands hold: every command in a shell block of README.md and docs/*.md (split
 * into words as test/support/shell-commands.ts says, a synopsis's [optional] parts as if given) is one
 * this file knows how to check, and passes. A failure names the page, the line and what is wrong.
 * - `pdfrender ...` (or `npx pdfrender ...`) is parsed by the program the CLI builds (buildProgram),
 *   its action stopped before it runs: the command exists, every flag is one it declares, with a value
 *   where it takes one. The values then go through what the command would check them with: render's
 *   request flags through the request schema (a --format name, an --emulated-media-type, a length),
 *   its run flags and serve's through their settings' schemas. webhooks and setup: flags only.
 * - `npm test`, `npm run X`: package.json has the script (what follows `--` goes to it unchecked).
 * - `curl`: the method and path are an operation of the OpenAPI document (which
 *   openapi-client.test.ts holds to the app's routes both ways), and a body given inline (-d, -F,
 *   --form-string) is decoded as the server decodes it (readBody, by the Content-Type curl would
 *   send), passes the schema of the operation's request body, and has no field the document does not
 *   name (the server refuses unknown fields too, unless started with --allow-unknown-fields).
 * - `export PDFRENDER_X=...` names a setting's environment variable.
 * - anything else must be in `allowed` below, with the reason it is not checked; a command this file
 *   does not know fails, so that new documentation is checked too.
 * A block in a language other than a shell's must be one `notCommands` names.
 */
import { PassThrough } from 'node:stream';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { type Command, Option } from 'commander';
import { Hono } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../src/cli/program.js';
import { parseAttach } from '../src/cli/render/attach-flag.js';
import { flagFiles, requestFieldsFromFlags } from '../src/cli/render/request-flags.js';
import { parseRunOptions } from '../src/cli/run-options.js';
import { PdfRenderError } from '../src/errors.js';
import { asyncRenderRequestSchema, parseRenderRequest, parseWith, renderRequestSchema } from '../src/request.js';
import { openApiDocument } from '../src/server/api/openapi.js';
import { addWebhookRequestSchema, rotateRequestSchema } from '../src/server/api/webhook-requests.js';
import { loadServeConfig, serveSettings } from '../src/server/config.js';
import { readBody } from '../src/server/routes/read-body.js';
import type { z } from 'zod';
import { pages, readPage, root } from './support/markdown.js';
import { shellCommands, type ShellCommand } from './support/shell-commands.js';

const shells = new Set(['', 'sh', 'bash', 'shell']);

/** The other languages a block may be in, and why it holds no commands. */
const notCommands: Record<string, string> = {
  json: 'a body or output shown, not run',
  ts: 'library code, not commands',
  js: 'library code, not commands',
  html: 'a document shown, not run',
  text: 'output shown (standard error), not run',
  yaml: "another program's configuration (Prometheus', Grafana's), not run",
};

/** Commands the documentation may use that are not pdfrender's to check, by their first words, and why. */
const allowed: Array<{ command: string; reason: string }> = [
  { command: 'npm ci', reason: "npm's own: installs the locked dependencies (and runs prepare)" },
  { command: 'npm install', reason: "npm's own: installs a package (the packed tarball, openapi-fetch)" },
  { command: 'npm pack', reason: "npm's own: makes the tarball another project installs" },
  { command: 'npx openapi-typescript', reason: 'a tool of its own (a dev dependency); the URL it reads is checked' },
  { command: 'apt-get', reason: 'the system package manager, for PostgreSQL' },
  { command: 'promtool', reason: "Prometheus' own: checks and tests the alert rules (docs/operating/)" },
  { command: 'git clone', reason: 'fetching this repository' },
  { command: 'cd', reason: 'moves to a folder' },
  { command: 'cat', reason: 'feeds a file to a pipe' },
  { command: 'grep', reason: 'picks lines out of what a command printed' },
  { command: 'python3 -m http.server', reason: 'any static web server, for an example that renders a URL' },
  { command: 'node -e', reason: 'a stand-in webhook receiver written out in full' },
];

const packageScripts = Object.keys(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts);
const settingEnvs = new Set<string>(Object.values(serveSettings).map((setting) => setting.env));

/** What is wrong with one command, or undefined when nothing is. */
async function problemOf(words: string[]): Promise<string | undefined> {
  const [name, ...args] = words as [string, ...string[]];
  if (name === 'pdfrender') return pdfrenderProblem(args);
  if (name === 'npx' && args[0] === 'pdfrender') return pdfrenderProblem(args.slice(1));
  if (name === 'npm' && (args[0] === 'test' || args[0] === 'run')) {
    const script = args[0] === 'test' ? 'test' : args[1];
    return script !== undefined && packageScripts.includes(script)
      ? undefined
      : `package.json has no script "${script ?? ''}"`;
  }
  if (name === 'curl') return curlProblem(args);
  if (name === 'export') {
    const unknown = args
      .map((arg) => arg.split('=')[0]!)
      .filter((v) => v.startsWith('PDFRENDER_') && !settingEnvs.has(v));
    return unknown.length > 0 ? `${unknown.join(', ')}: no setting reads it` : undefined;
  }
  if (allowed.some(({ command }) => command.split(' ').every((word, index) => words[index] === word)))
    return serverUrls(args)
      .map((url) => routeProblem('GET', url))
      .find(Boolean);
  return 'a command this test does not know: check it here, or add it to the allowed list with a reason';
}

/** What pdfrender says about `args`, parsed by the real program with its action stopped before it runs. */
async function pdfrenderProblem(args: string[]): Promise<string | undefined> {
  const sink = new PassThrough();
  sink.resume();
  const program = await buildProgram(
    args,
    {
      stdin: new PassThrough(),
      stdout: sink,
      stderr: sink,
      stdoutIsTTY: false,
      stderrIsTTY: false,
      env: {},
      cwd: root,
      platform: process.platform,
      isRoot: false,
      signal: new AbortController().signal,
    },
    () => {},
  );
  const stop = new Error('stopped before the action');
  let command: Command | undefined;
  program.hook('preAction', (_program, actionCommand) => {
    command = actionCommand;
    throw stop;
  });
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (error) {
    if (error !== stop) return messageOf(error);
  }
  try {
    if (command?.name() === 'render') await checkRenderValues(command.opts(), command.args);
    if (command?.name() === 'serve') checkServeValues(command.opts());
  } catch (error) {
    return messageOf(error);
  }
  return undefined;
}

const standInFile = join(mkdtempSync(join(tmpdir(), 'pdfrender-docs-')), 'stand-in.html');
writeFileSync(standInFile, '<p>a file</p>');
afterAll(() => rmSync(dirname(standInFile), { recursive: true, force: true }));

/** Render's flag values, through the checks its run makes before it renders; a URL among `inputs` is the document. */
async function checkRenderValues(options: Record<string, unknown>, inputs: string[]): Promise<void> {
  // A file flag's value is a path (read when it runs); what the file holds is not the documentation's
  // to show: a stand-in file is read in its place, so a field that needs another (facturXProfile
  // needs facturX) finds it given.
  const files = new Set(flagFiles(options));
  const values = Object.fromEntries(
    Object.entries(options)
      .filter(([key]) => key !== 'attach')
      .map(([key, value]) => [key, files.has(value as string) ? standInFile : value]),
  );
  const { fields } = await requestFieldsFromFlags(values, root);
  // --attach's files are not there either: what its ";key=value" parts say is checked, with no content.
  const attachments = (options.attach as string[] | undefined)?.map((value) => {
    const { path, fields: said } = parseAttach(value);
    return { name: basename(path), content: '', ...said };
  });
  const url = inputs.find((input) => /^https?:\/\//.test(input));
  parseRenderRequest({
    ...(url ? { url } : { htmlContent: '<p></p>' }),
    ...fields,
    ...(attachments ? { attachments } : {}),
  });
  // The run options are serve's settings of the same names (keyed by setting; each takes its own).
  parseRunOptions(settingValues(options));
}

/** Serve's flag values, through the settings' schemas (no environment). */
function checkServeValues(options: Record<string, unknown>): void {
  loadServeConfig(settingValues(options), {}, root);
}

/** Commander's parsed options keyed by serve's settings (commander names each after its flag: --allow-host is allowHost). */
const settingValues = (options: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(serveSettings).map(([key, setting]) => [key, options[new Option(setting.flag).attributeName()]]),
  );

const openApi = openApiDocument('0.0.0', { playground: true, metrics: true });
const operations = openApi.paths as Record<string, Record<string, { requestBody?: { $ref: string } }>>;
const requestBodies = openApi.components.requestBodies as Record<
  string,
  { required: boolean; content: Record<string, { schema: JsonSchema }> }
>;

/** The schema each request body of the document is parsed with, by its name there. */
const bodySchemas: Record<string, z.ZodType> = {
  RenderRequest: renderRequestSchema,
  AsyncRenderRequest: asyncRenderRequestSchema,
  RotateRequest: rotateRequestSchema,
  WebhookEndpointRequest: addWebhookRequestSchema,
};

/** curl's options the documentation uses: those that take a value, and those that do not. */
const curlValueOptions = new Set([
  '-H',
  '--header',
  '-d',
  '--data',
  '--data-raw',
  '-F',
  '--form',
  '--form-string',
  '-o',
  '--output',
  '-D',
  '--dump-header',
  '-X',
  '--request',
]);
const curlSwitches = new Set(['-s', '--silent', '-i', '--include', '-f', '--fail']);

/** A curl command: its method and path an operation of the server, and an inline body one that operation accepts. */
async function curlProblem(args: string[]): Promise<string | undefined> {
  const urls: string[] = [];
  const given: Array<[string, string]> = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (curlValueOptions.has(arg)) {
      const value = args[++index];
      if (value === undefined) return `curl ${arg} needs a value`;
      given.push([arg, value]);
    } else if (curlSwitches.has(arg)) continue;
    else if (arg.startsWith('-')) return `curl ${arg}: an option this test does not know (add it above if curl has it)`;
    else urls.push(arg);
  }
  if (urls.length !== 1) return `curl names ${urls.length} URLs; one expected`;
  const values = (...options: string[]) => given.filter(([option]) => options.includes(option)).map(([, v]) => v);
  const data = values('-d', '--data', '--data-raw');
  const forms = given.filter(([option]) => ['-F', '--form', '--form-string'].includes(option));
  const method = values('-X', '--request').at(-1) ?? (data.length > 0 || forms.length > 0 ? 'POST' : 'GET');
  const route = routeProblem(method, urls[0]!);
  if (route) return route;
  const operation = operationOf(method, urls[0]!)!;
  const bodyName = operation.requestBody?.$ref.split('/').at(-1);
  const sent = data.length > 0 || forms.length > 0;
  if (!bodyName) return sent ? `${method} ${pathOf(urls[0]!)} takes no body` : undefined;
  if (!sent) return requestBodies[bodyName]!.required ? `${method} ${pathOf(urls[0]!)} needs a body` : undefined;
  const schema = bodySchemas[bodyName];
  if (!schema) return `no schema for the request body ${bodyName}: name it in bodySchemas`;
  // A body in a file (-d @req.json) is not in the documentation to check.
  if (data.some((value) => value.startsWith('@'))) return undefined;
  const headers = new Headers(
    values('-H', '--header').map((header) => around(header, ':').map((part) => part.trim()) as [string, string]),
  );
  let body: BodyInit;
  if (forms.length > 0) {
    body = new FormData();
    for (const [option, field] of forms) {
      const [name, value] = around(field, '=');
      // curl -F reads a file for @file (an upload) and <file (its text): stand-in HTML for either.
      if (option !== '--form-string' && value.startsWith('@')) body.append(name, ...uploaded(value));
      else body.append(name, option !== '--form-string' && value.startsWith('<') ? '<p>a file</p>' : value);
    }
  } else {
    body = data.join('&');
    // curl's own default for -d.
    if (!headers.has('content-type')) headers.set('content-type', 'application/x-www-form-urlencoded');
  }
  const response = await bodyReader.request(new Request('http://docs.invalid/', { method, headers, body }));
  const read = (await response.json()) as { fields?: unknown; error?: string };
  if (read.error !== undefined) return read.error;
  try {
    parseWith(schema, read.fields);
  } catch (error) {
    return messageOf(error);
  }
  // The schema passes over a field it does not know; in the documentation that is a misspelling.
  const unknown = unknownFields(read.fields, named(requestBodies[bodyName]!.content['application/json']!.schema));
  return unknown.length > 0 ? `${unknown.join(', ')}: no such field in ${bodyName}` : undefined;
}

/**
 * What curl -F uploads for `@path;type=...;filename=...`: stand-in HTML, with the part's type and its
 * file name (the path's last part, or filename=) as curl sends them.
 */
function uploaded(value: string): [Blob, string] {
  const [path, ...parts] = value.slice(1).split(';');
  const option = (key: string) => parts.find((part) => part.startsWith(`${key}=`))?.slice(key.length + 1);
  return [new Blob(['<p>a file</p>'], { type: option('type') ?? '' }), option('filename') ?? path!.split('/').at(-1)!];
}

/** A request body's schema, or the named one (components.schemas) it refers to. */
function named(schema: JsonSchema): JsonSchema {
  const name = schema.$ref?.replace('#/components/schemas/', '');
  return name ? (openApi.components.schemas as Record<string, JsonSchema>)[name]! : schema;
}

/** As much of a JSON Schema as unknownFields reads. */
interface JsonSchema {
  $ref?: string;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
}

/** The fields of `value` (nested ones as a.b) that no properties of `schema` or of its alternatives name (nor allow, as a record's any key). */
function unknownFields(value: unknown, schema: JsonSchema, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  const alternatives = (s: JsonSchema): JsonSchema[] => [
    s,
    ...[...(s.anyOf ?? []), ...(s.oneOf ?? [])].flatMap(alternatives),
  ];
  const properties = alternatives(schema).flatMap((s) => Object.entries(s.properties ?? {}));
  // An object of any keys (cookies, extraHttpHeaders: a record) knows every key.
  const anyKey = alternatives(schema).flatMap((s) =>
    typeof s.additionalProperties === 'object' ? [s.additionalProperties] : [],
  );
  return Object.entries(value).flatMap(([key, field]) => {
    const named = properties.filter(([name]) => name === key).map(([, property]) => property);
    const known = named.length > 0 ? named : anyKey;
    if (known.length === 0) return [`${prefix}${key}`];
    // Known where any of its schemas knows all of it.
    const problems = known.map((property) => unknownFields(field, property, `${prefix}${key}.`));
    return problems.find((list) => list.length === 0) ?? problems[0]!;
  });
}

/** The server's own body reader, as a route runs it. */
const bodyReader = new Hono().all('*', async (c) => {
  try {
    return c.json({ fields: await readBody(c) });
  } catch (error) {
    return c.json({ error: messageOf(error) });
  }
});

/** `text` before and after the first `separator`. */
function around(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator);
  return [text.slice(0, at), text.slice(at + separator.length)];
}

const pathOf = (url: string) => new URL(/^https?:/.test(url) ? url : `http://${url}`).pathname;

/** The operation of the document serving `method` at `url`'s path. */
function operationOf(method: string, url: string): { requestBody?: { $ref: string } } | undefined {
  const path = pathOf(url);
  const match = Object.keys(operations).find((template) =>
    new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+').replace(/\./g, '\\.')}$`).test(path),
  );
  return match === undefined ? undefined : operations[match]![method.toLowerCase()];
}

/** Why no operation serves `method` at `url`, or undefined when one does. */
function routeProblem(method: string, url: string): string | undefined {
  return operationOf(method, url) ? undefined : `the server has no ${method} ${pathOf(url)}`;
}

/** The words that are URLs of a pdfrender server (its port, 3000, on this machine). */
const serverUrls = (words: string[]) =>
  words.filter((word) => /^(https?:\/\/)?(127\.0\.0\.1|localhost):3000\//.test(word));

/** An error as one line; a validation error with its fields. */
function messageOf(error: unknown): string {
  if (error instanceof PdfRenderError && error.fieldErrors)
    return `${error.message}: ${JSON.stringify(error.fieldErrors)}`;
  return (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' ');
}

/** The commands of a page's shell blocks. */
const commandsOf = (page: string) =>
  readPage(page)
    .blocks.filter((block) => shells.has(block.language))
    .flatMap((block) => shellCommands(block.lines));

/** The problems of a page's blocks, each as `page:line: command: problem`. */
async function problemsOf(page: string): Promise<string[]> {
  const problems: string[] = [];
  for (const block of readPage(page).blocks) {
    if (!shells.has(block.language)) {
      if (!Object.hasOwn(notCommands, block.language))
        problems.push(
          `${page}:${block.start}: a \`\`\`${block.language} block: say in notCommands why it holds no commands`,
        );
      continue;
    }
    let commands: ShellCommand[];
    try {
      commands = shellCommands(block.lines);
    } catch (error) {
      problems.push(`${page}:${block.start}: ${messageOf(error)}`);
      continue;
    }
    for (const { line, words } of commands) {
      const problem = await problemOf(words);
      if (problem) problems.push(`${page}:${line}: ${words.join(' ')}: ${problem}`);
    }
  }
  return problems;
}

describe("the documentation's commands", () => {
  it.each(pages)('%s: every command in a shell block is one this test knows, and passes', async (page) => {
    expect(await problemsOf(page)).toEqual([]);
  });

  it('are found: pdfrender, npm and curl commands among them', () => {
    const names = new Set(pages.flatMap(commandsOf).map(({ words }) => (words[0] === 'npx' ? words[1] : words[0])));
    expect(['pdfrender', 'npm', 'curl'].filter((name) => !names.has(name))).toEqual([]);
  });
});
