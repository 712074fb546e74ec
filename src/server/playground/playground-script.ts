/**
 * The playground page's script, written here so that it is type-checked, and served as the text of
 * the function (see playground-route.ts): it must use nothing from outside its own body. It builds
 * the option controls from the setup the page carries, posts the form to render-sync as JSON with
 * Accept: application/pdf, shows the PDF in a frame with its preflight report beside it, and keeps
 * the equivalent curl command and JSON body up to date.
 */
import type { z } from 'zod';
import type { RenderReport } from '../../engine/report/render-report.js';
import type { truncatedReport } from '../api/api-answers.js';
import type { PlaygroundField, PlaygroundSetup } from './playground-fields.js';

/** Runs in the browser, once the page has loaded. */
export function playgroundScript(): void {
  const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
  const setup = JSON.parse(byId('playground-setup').textContent ?? '{}') as PlaygroundSetup;
  const form = byId<HTMLFormElement>('request');
  const status = byId<HTMLOutputElement>('status');
  const problems = byId<HTMLUListElement>('problems');
  const reportBox = byId('report');
  const reportKinds = byId<HTMLUListElement>('report-kinds');
  const frame = byId<HTMLIFrameElement>('pdf');
  const keyInput = byId<HTMLInputElement>('api-key');
  const endpoint = new URL('api/pdfs/render-sync', location.href).href;
  const stored = 'pdfrender-playground';
  const fields = [...setup.editors, ...setup.options];
  const formatFields = Object.keys(Object.values(setup.formats)[0] ?? {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inFlight: AbortController | undefined;
  let pdfUrl: string | undefined;
  let renders = 0;

  const element = <K extends keyof HTMLElementTagNameMap>(
    tag: K,
    properties: Record<string, unknown> = {},
    ...children: Array<Node | string>
  ) => {
    const made: HTMLElementTagNameMap[K] = Object.assign(document.createElement(tag), properties);
    made.append(...children);
    return made;
  };
  const control = (name: string) => form.elements.namedItem(name) as HTMLInputElement | null;

  // One control per field, with the schema's help as its tooltip and its default as the placeholder.
  function controlFor(field: PlaygroundField): HTMLElement {
    const common = { name: field.name, id: `field-${field.name}`, title: field.description };
    if (field.kind === 'switch')
      return element('input', { ...common, type: 'checkbox', checked: field.default === true });
    if (field.kind === 'choice') {
      const choices = (field.choices ?? []).map((choice) =>
        element('option', { value: choice, selected: choice === field.default }, choice),
      );
      return element('select', common, ...choices);
    }
    const placeholder = field.default === undefined ? '' : String(field.default);
    return field.multiline
      ? element('textarea', { ...common, placeholder, spellcheck: false, rows: 2 })
      : element('input', { ...common, placeholder, spellcheck: false });
  }
  for (const field of setup.editors) byId(`editor-${field.name}`).append(controlFor(field));
  const formatSelect = element(
    'select',
    { id: 'paper-format', title: 'a named paper size: fills in paperWidth and paperHeight' },
    element('option', { value: '' }, 'custom'),
  );
  for (const name of Object.keys(setup.formats)) formatSelect.append(element('option', { value: name }, name));
  // Each option in a label of its own (its name, then its control; a checkbox first), laid out by the style sheet.
  const option = (name: string, input: HTMLElement, className: string) =>
    element('label', { className, title: input.title }, ...(className === 'switch' ? [input, name] : [name, input]));
  const options = byId('options');
  for (const field of setup.options) {
    if (field.name === formatFields[0]) options.append(option('paper format', formatSelect, 'text'));
    options.append(
      option(
        field.name,
        controlFor(field),
        field.kind === 'switch' ? 'switch' : field.multiline ? 'text wide' : 'text',
      ),
    );
  }

  // The request body: every editor with text and every option changed from its default.
  function body(): Record<string, unknown> {
    const sent: Record<string, unknown> = {};
    for (const field of fields) {
      const input = control(field.name)!;
      if (field.kind === 'switch') {
        if (input.checked !== (field.default === true)) sent[field.name] = input.checked;
      } else if (field.kind === 'choice') {
        if (input.value !== field.default) sent[field.name] = input.value;
      } else if (input.value.trim() !== '') {
        sent[field.name] =
          field.numeric && /^-?\d+(\.\d+)?$/.test(input.value.trim()) ? Number(input.value) : input.value;
      }
    }
    return sent;
  }
  const headers = (): Record<string, string> => {
    const key = keyInput.value.trim();
    return {
      'Content-Type': 'application/json',
      Accept: 'application/pdf',
      ...(key && { Authorization: `Bearer ${key}` }),
    };
  };
  const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
  function showRequest(): void {
    const json = JSON.stringify(body(), null, 2);
    const lines = [
      `curl -sS ${quote(endpoint)}`,
      ...Object.entries(headers()).map(([name, value]) => `-H ${quote(`${name}: ${value}`)}`),
      `--data-raw ${quote(json)}`,
      '-o out.pdf',
    ];
    byId<HTMLTextAreaElement>('curl').value = lines.join(' \\\n  ');
    byId<HTMLTextAreaElement>('json-body').value = json;
  }

  function show(state: string, text: string, notes: string[] = []): void {
    status.dataset.state = state;
    status.textContent = text;
    problems.replaceChildren(...notes.map((note) => element('li', {}, note)));
  }
  const size = (bytes: number) => (bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`);
  // What the header and footer left out, as the warnings header says it.
  const warningsOf = (response: Response): string[] =>
    response.headers.get('X-Pdfrender-Warnings') ? [`warning: ${response.headers.get('X-Pdfrender-Warnings')}`] : [];

  const kindLabels: Record<string, string> = {
    missingGlyphs: 'characters no font could draw',
    resourceErrors: 'resources that did not load',
    scriptErrors: 'script errors',
    overflow: 'elements wider than the printable width',
  };
  // Each kind of problem of a whole report: how many, and a line for each of the first ones.
  function reportKindsOf(report: RenderReport): Record<string, { count: number; items: string[] }> {
    const { resources, scriptErrors } = report;
    const resourceItems = [
      ...resources.failed.map((issue) => `${issue.url}: ${issue.reason}`),
      ...resources.blocked.map((issue) => `blocked ${issue.url}: ${issue.reason}`),
      ...resources.brokenImages.map((image) => `image ${image.url} (${image.selector}): ${image.reason}`),
      ...report.fonts.failed.map((font) => `font ${font.family}: ${font.reason}`),
    ];
    return {
      missingGlyphs: {
        count: report.missingGlyphs.reduce((sum, group) => sum + group.count, 0),
        items: report.missingGlyphs.map(
          (group) => `${group.script} (${group.count}): ${group.characters} in the ${group.where.join(', ')}`,
        ),
      },
      resourceErrors: { count: resourceItems.length, items: resourceItems },
      scriptErrors: {
        count: scriptErrors.count,
        items: scriptErrors.messages.map((error) => `${error.kind}: ${error.message}`),
      },
      overflow: {
        count: report.overflow.length,
        items: report.overflow.map(
          (element) =>
            `${element.selector} ends at ${element.right} px of ${element.printableWidth} (${element.cutOff ? 'cut off' : 'page shrunk to fit'})`,
        ),
      },
    };
  }
  /**
   * The preflight report beside the PDF: a line per kind of problem with its count and its first
   * offenders, or "no problems found". Its URLs and messages are the document's own, so they go in
   * as text, never as HTML.
   */
  function showReport(report: RenderReport | z.infer<typeof truncatedReport> | undefined): void {
    reportBox.hidden = report === undefined;
    if (!report) return;
    const kinds =
      'truncated' in report
        ? Object.fromEntries(Object.entries(report.counts).map(([kind, count]) => [kind, { count, items: [] }]))
        : reportKindsOf(report);
    const found = Object.entries(kinds).filter(([, kind]) => kind.count > 0);
    reportBox.dataset.problems = String(found.length);
    const shown = 10;
    reportKinds.replaceChildren(
      ...found.map(([kind, { count, items }]) =>
        element(
          'li',
          { className: `kind-${kind}` },
          `${kindLabels[kind] ?? kind}: ${count}`,
          ...(items.length > 0
            ? [
                element(
                  'ul',
                  {},
                  ...items.slice(0, shown).map((item) => element('li', {}, item)),
                  ...(items.length > shown ? [element('li', {}, `and ${items.length - shown} more`)] : []),
                ),
              ]
            : []),
        ),
      ),
      ...(found.length === 0 ? [element('li', {}, 'no problems found')] : []),
      ...('truncated' in report ? [element('li', {}, 'counted only: the whole report is in the JSON answer')] : []),
    );
  }
  // The report of a PDF answer, from its header (null when there is none, or it is not JSON).
  function headerReport(response: Response): RenderReport | z.infer<typeof truncatedReport> | undefined {
    try {
      return JSON.parse(response.headers.get('X-Pdfrender-Report') ?? 'null') ?? undefined;
    } catch {
      return undefined;
    }
  }

  async function render(): Promise<void> {
    clearTimeout(timer);
    inFlight?.abort();
    const mine = (inFlight = new AbortController());
    form.querySelectorAll('[aria-invalid]').forEach((marked) => marked.removeAttribute('aria-invalid'));
    show('rendering', 'Rendering…');
    const started = performance.now();
    try {
      const sent = body();
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: headers(),
        body: JSON.stringify(sent),
        signal: mine.signal,
      });
      if (response.ok) {
        // Typed here, so the frame shows a PDF whatever a proxy on the way said it was (never HTML of this origin).
        const pdf = new Blob([await response.arrayBuffer()], { type: 'application/pdf' });
        if (mine.signal.aborted) return;
        if (pdfUrl) URL.revokeObjectURL(pdfUrl);
        pdfUrl = URL.createObjectURL(pdf);
        // Chromium's viewer: the page fitted to the frame's width, no thumbnails beside it.
        frame.src = `${pdfUrl}#view=FitH&navpanes=0`;
        // Which request this PDF answers, as the JSON box shows it (for a reader, and for tests to wait on).
        frame.dataset.request = JSON.stringify(sent, null, 2);
        renders += 1;
        Object.assign(status.dataset, { renders: String(renders), bytes: String(pdf.size) });
        show('ok', `Rendered ${size(pdf.size)} in ${Math.round(performance.now() - started)} ms`, warningsOf(response));
        showReport(headerReport(response));
        return;
      }
      const answer = (await response.json().catch(() => ({}))) as {
        outcome?: string;
        message?: string;
        errors?: Record<string, string[]>;
        retryAfter?: number;
        report?: RenderReport;
      };
      // A render a failOn rule failed has its report; no other failure has one.
      showReport(answer.report);
      if (response.status === 422 && answer.errors) {
        for (const name of Object.keys(answer.errors)) control(name)?.setAttribute('aria-invalid', 'true');
        show(
          'error',
          `${answer.outcome}: the request has bad fields`,
          Object.entries(answer.errors).map(([name, messages]) => `${name}: ${messages.join('; ')}`),
        );
      } else if (response.status === 429) {
        const seconds = Number(response.headers.get('Retry-After') ?? answer.retryAfter ?? 5);
        show('error', `${answer.outcome}: rate limit reached; trying again in ${seconds} s`, [answer.message ?? '']);
        timer = setTimeout(() => void render(), seconds * 1000);
      } else {
        if (response.status === 401) byId('key-field').hidden = false;
        show('error', `${answer.outcome ?? `HTTP ${response.status}`}: ${answer.message ?? response.statusText}`);
      }
    } catch (error) {
      if (!mine.signal.aborted) show('error', `The server could not be reached: ${(error as Error).message}`);
    }
  }

  // Whichever format both paper fields name (an empty field is its default), else custom.
  function matchFormat(): void {
    const current = (name: string) => control(name)!.value.trim() || control(name)!.placeholder;
    formatSelect.value =
      Object.entries(setup.formats).find(([, sizes]) =>
        formatFields.every((name) => sizes[name] === current(name)),
      )?.[0] ?? '';
  }
  formatSelect.addEventListener('change', () => {
    const sizes = setup.formats[formatSelect.value];
    if (!sizes) return;
    for (const name of formatFields) control(name)!.value = sizes[name]!;
    form.dispatchEvent(new Event('input'));
  });

  // The form is kept in this browser between visits; the key only for this tab (sessionStorage).
  const saved = JSON.parse(localStorage.getItem(stored) ?? 'null') as Record<string, string | boolean> | null;
  function fill(values: Record<string, string | boolean>): void {
    for (const field of fields) {
      const input = control(field.name)!;
      const value = values[field.name];
      if (field.kind === 'switch') input.checked = typeof value === 'boolean' ? value : field.default === true;
      else input.value = typeof value === 'string' ? value : field.kind === 'choice' ? String(field.default ?? '') : '';
    }
    matchFormat();
    showRequest();
  }
  fill(saved ?? setup.sample);
  const save = () =>
    localStorage.setItem(
      stored,
      JSON.stringify(
        Object.fromEntries(
          fields.map((field) => [
            field.name,
            field.kind === 'switch' ? control(field.name)!.checked : control(field.name)!.value,
          ]),
        ),
      ),
    );
  form.addEventListener('input', (event) => {
    // The format list fills in the paper fields and announces that itself, below.
    if (event.target === formatSelect) return;
    matchFormat();
    showRequest();
    save();
    clearTimeout(timer);
    timer = setTimeout(() => void render(), 400);
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void render();
  });
  byId('reset').addEventListener('click', () => {
    localStorage.removeItem(stored);
    fill(setup.sample);
    void render();
  });

  byId('key-field').hidden = !setup.auth;
  keyInput.value = sessionStorage.getItem(stored) ?? '';
  keyInput.addEventListener('change', () => {
    sessionStorage.setItem(stored, keyInput.value.trim());
    showRequest();
    void render();
  });
  for (const [button, box] of [
    ['copy-curl', 'curl'],
    ['copy-json', 'json-body'],
  ] as const) {
    byId(button).addEventListener('click', () => {
      const text = byId<HTMLTextAreaElement>(box);
      // The clipboard API needs a secure context (loopback is one); elsewhere the old way.
      const copied = navigator.clipboard?.writeText(text.value) ?? Promise.reject(new Error('no clipboard'));
      copied.catch(() => {
        text.select();
        document.execCommand('copy');
      });
    });
  }
  void render();
}
