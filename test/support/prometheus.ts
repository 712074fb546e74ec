/**
 * A real Prometheus (Debian's `prometheus` package, which .ci/run installs) scraping a pdfrender
 * server every second, asked through its own HTTP query API, as an operator's dashboards would.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort } from '../../bench/lib/postgres.mjs';
import { tempDir } from './files.js';
import { until } from './wait.js';

/** Whether Prometheus is installed. */
export const hasPrometheus = spawnSync('prometheus', ['--version'], { stdio: 'ignore' }).status === 0;

export interface Prometheus {
  /** The instant value of each series `query` answers, with its labels. */
  query(query: string): Promise<Array<{ labels: Record<string, string>; value: number }>>;
  /** The single value `query` answers, or undefined when it answers none. */
  value(query: string): Promise<number | undefined>;
  close(): Promise<void>;
}

/** Start Prometheus scraping `target` (host:port) every second, with `bearer` as its credentials when given. */
export async function startPrometheus(target: string, bearer?: string): Promise<Prometheus> {
  const dir = await tempDir();
  const config = [
    'global:',
    '  scrape_interval: 1s',
    '  scrape_timeout: 1s',
    'scrape_configs:',
    '  - job_name: pdfrender',
    ...(bearer ? ['    authorization:', `      credentials: ${bearer}`] : []),
    '    static_configs:',
    `      - targets: ['${target}']`,
  ].join('\n');
  await writeFile(join(dir, 'prometheus.yml'), config);
  // Prometheus cannot pick a port of its own.
  const port = await freePort();
  const child: ChildProcess = spawn(
    'prometheus',
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const base = `http://127.0.0.1:${port}`;
  const query: Prometheus['query'] = async (expression) => {
    const response = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(expression)}`);
    const body = (await response.json()) as {
      status: string;
      error?: string;
      data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
    };
    if (body.status !== 'success') throw new Error(`Prometheus refused ${expression}: ${body.error}`);
    return body.data.result.map(({ metric, value }) => ({ labels: metric, value: Number(value[1]) }));
  };
  await until(
    async () =>
      child.exitCode === null &&
      (await fetch(`${base}/-/ready`).then(
        (r) => r.ok,
        () => false,
      )),
    `Prometheus to be ready (${stderr.slice(-500)})`,
    30_000,
  );
  return {
    query,
    async value(expression) {
      const result = await query(expression);
      if (result.length > 1) throw new Error(`${expression} answered ${result.length} series, not one`);
      return result[0]?.value;
    },
    async close() {
      const exited = new Promise((resolve) => child.once('close', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The value of `series` (`name{labels}`, as the exposition writes it) in the text `/metrics` at `url` answers now, without waiting for a scrape. */
export async function scrapedValue(url: string, series: string, headers: Record<string, string> = {}) {
  const text = await (await fetch(url, { headers })).text();
  const line = text.split('\n').find((each) => each.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
