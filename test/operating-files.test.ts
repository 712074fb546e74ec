/**
 * The operator's files in docs/operating/ hold: the alert rules are a rules file Prometheus loads
 * (Debian's promtool checks it) and fire when they should (promtool runs alerts.test.yml against
 * them); the Grafana dashboard is JSON whose every panel has a title and a query; and every metric
 * the rules and the dashboard query is one a real server serves at GET /metrics, so renaming a
 * metric on either side fails here rather than leaving an empty graph or an alert that never fires.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { folderWith, removeTempDirs } from './support/files.js';
import { root } from './support/markdown.js';
import { startServer, type TestServer } from './support/server.js';

const rulesFile = 'docs/operating/alerts.yml';
const rulesTestFile = 'docs/operating/alerts.test.yml';
const dashboardFile = 'docs/operating/grafana-dashboard.json';
const read = (file: string) => readFileSync(join(root, file), 'utf8');

/** Whether Debian's promtool (the prometheus package) is on the PATH; looked for without running it. */
const hasPromtool = (process.env.PATH ?? '').split(delimiter).some((dir) => dir && existsSync(join(dir, 'promtool')));

/** Run promtool with `args` from the repository's root: its exit status and what it printed. */
function promtool(...args: string[]): { status: number | null; output: string } {
  const run = spawnSync('promtool', args, { cwd: root, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/**
 * The `expr` of each rule in a rules file, read line by line: on the `expr:` line itself, or a
 * folded block (`>-`, `|`) below it, up to the next line indented no deeper than `expr:`.
 */
function ruleExpressions(yaml: string): string[] {
  const lines = yaml.split('\n');
  const indent = (line: string) => line.length - line.trimStart().length;
  const found: string[] = [];
  lines.forEach((line, i) => {
    const expr = /^(\s*)expr:\s*(.*)$/.exec(line);
    if (!expr) return;
    if (!/^[>|][-+]?$/.test(expr[2]!)) return void found.push(expr[2]!);
    const block: string[] = [];
    for (let j = i + 1; j < lines.length && (!lines[j]!.trim() || indent(lines[j]!) > expr[1]!.length); j++)
      block.push(lines[j]!.trim());
    found.push(block.join(' '));
  });
  return found;
}

interface Panel {
  type?: string;
  title?: string;
  targets?: Array<{ expr?: string }>;
  panels?: Panel[];
}

/** Every panel of a dashboard, those inside rows (collapsed rows keep theirs in `panels`) included. */
const allPanels = (panels: Panel[]): Panel[] => panels.flatMap((panel) => [panel, ...allPanels(panel.panels ?? [])]);

/** PromQL's words that read like a metric name: set operators, modifiers, and what takes a label list. */
const keywords = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);

/**
 * The metric names a PromQL expression (Grafana's `$variables` allowed) selects: what is left once
 * strings, label matchers, ranges, label lists (`by (le)`) and variables are gone, bar function names
 * (followed by a parenthesis) and keywords.
 */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\$\{?\w+\}?/g, ' ');
  return [...bare.matchAll(/(?<![\w.:])[a-zA-Z_:][\w:]*(?![\w:]|\s*\()/g)]
    .map(([name]) => name)
    .filter((name) => !keywords.has(name));
}

/** The families a /metrics answer declares (`# TYPE name type`), by name. */
const families = (text: string) =>
  new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => [name!, type!] as const));

/** Whether `name` is one of `served`'s series: a family's own name, or a histogram's _bucket, _sum or _count. */
function isServed(name: string, served: Map<string, string>): boolean {
  if (served.has(name)) return true;
  const family = /^(.*)_(?:bucket|sum|count)$/.exec(name)?.[1];
  return family !== undefined && ['histogram', 'summary'].includes(served.get(family) ?? '');
}

/** Prometheus' own series, which no exporter serves: `up` is 0 when a scrape failed. */
const prometheusOwn = new Set(['up']);

const dashboard = JSON.parse(read(dashboardFile)) as {
  panels: Panel[];
  templating: { list: Array<{ name: string; type: string; query: unknown }> };
};
const panels = allPanels(dashboard.panels);
const queries = panels.filter((panel) => panel.type !== 'row');
const rules = read(rulesFile);

describe('the alert rules', () => {
  it('has one expression per alert, each found', () => {
    const alerts = rules.match(/^\s*- alert: /gm) ?? [];
    expect(alerts.length).toBeGreaterThanOrEqual(7);
    expect(ruleExpressions(rules)).toHaveLength(alerts.length);
    for (const expr of ruleExpressions(rules)) expect(expr).not.toBe('');
  });

  it.skipIf(!hasPromtool)('is a rules file Prometheus loads (promtool check rules)', () => {
    const { status, output } = promtool('check', 'rules', rulesFile);
    expect(output).toContain(`SUCCESS: ${ruleExpressions(rules).length} rules found`);
    expect(status).toBe(0);
  });

  it.skipIf(!hasPromtool)('fires on the queue-age and storage series of alerts.test.yml, quiet otherwise', () => {
    const { status, output } = promtool('test', 'rules', rulesTestFile);
    expect(output).toContain('SUCCESS');
    expect(status).toBe(0);
  });
});

/**
 * The dashboard's queries as a rules file of recording rules (JSON is YAML), Grafana's variables
 * given values as Grafana would, so that promtool parses each as Prometheus would.
 */
const queriesAsRules = () =>
  JSON.stringify({
    groups: [
      {
        name: 'dashboard',
        rules: queries.flatMap((panel, i) =>
          (panel.targets ?? []).map((target, j) => ({
            record: `dashboard:panel_${i}:target_${j}`,
            expr: (target.expr ?? '').replaceAll('$__rate_interval', '1m').replaceAll('$instance', '.*'),
          })),
        ),
      },
    ],
  });

describe('the Grafana dashboard', () => {
  it('has a datasource variable for Prometheus and an instance variable', () => {
    const variables = new Map(dashboard.templating.list.map((variable) => [variable.name, variable]));
    expect(variables.get('datasource')).toMatchObject({ type: 'datasource', query: 'prometheus' });
    expect(variables.get('instance')).toMatchObject({ type: 'query' });
  });

  it('gives every panel a title, and every panel but a row a query', () => {
    expect(queries.length).toBeGreaterThanOrEqual(14);
    for (const panel of panels) expect(panel.title, JSON.stringify(panel).slice(0, 200)).toBeTruthy();
    for (const panel of queries) {
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets!) expect(target.expr, panel.title).toBeTruthy();
    }
  });

  it.skipIf(!hasPromtool)('queries in PromQL that Prometheus parses (promtool check rules)', async () => {
    const dir = await folderWith({ 'dashboard-queries.yml': queriesAsRules() });
    const { status, output } = promtool('check', 'rules', join(dir, 'dashboard-queries.yml'));
    expect(output).toContain('SUCCESS');
    expect(status).toBe(0);
  });
});

describe('the metrics the rules and the dashboard query', () => {
  let server: TestServer;
  let served: Map<string, string>;

  beforeAll(async () => {
    server = await startServer({ metrics: true });
    const answer = await fetch(`${server.url}/metrics`);
    expect(answer.status).toBe(200);
    served = families(await answer.text());
  });

  afterAll(async () => {
    await server?.close();
    await removeTempDirs();
  });

  it('reads the names out of PromQL', () => {
    expect(
      metricNames(
        'histogram_quantile(0.95, sum by (le) (rate(pdfrender_webhook_delivery_lag_seconds_bucket{instance=~"$instance"}[$__rate_interval]))) > 1e3 and on (instance) up == 0',
      ),
    ).toEqual(['pdfrender_webhook_delivery_lag_seconds_bucket', 'up']);
  });

  it('are all served at GET /metrics', () => {
    expect(served.get('pdfrender_renders_total')).toBe('counter');
    const used = new Map<string, string>();
    for (const expr of ruleExpressions(rules)) for (const name of metricNames(expr)) used.set(name, rulesFile);
    for (const panel of queries)
      for (const { expr = '' } of panel.targets ?? [])
        for (const name of metricNames(expr)) used.set(name, `${dashboardFile}: ${panel.title}`);
    // A query variable's label_values(metric, label): the metric whose series list the choices.
    for (const { name, query } of dashboard.templating.list) {
      const metric = /label_values\((\w+),/.exec(JSON.stringify(query))?.[1];
      if (metric) used.set(metric, `${dashboardFile}: the ${name} variable`);
    }
    expect(used.size).toBeGreaterThanOrEqual(20);
    const unknown = [...used].filter(([name]) => !isServed(name, served) && !prometheusOwn.has(name));
    expect(unknown.map(([name, where]) => `${name} (${where})`)).toEqual([]);
  });
});
