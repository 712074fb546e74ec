/**
 * CLI conventions: colour by --color/--no-color, FORCE_COLOR and NO_COLOR; progress lines that say
 * where a run is; errors on stderr in every mode, --json's included; global options in each
 * command's help. Run in-process through runCli with a CliIO of the test's own: none needs a
 * render, so the unit tier runs this file; cli-conventions-process.test.ts has the one that needs a
 * real process.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { colorFlag, colorLevel, painter } from '../src/cli/color.js';
import type { CliIO } from '../src/cli/io.js';
import { runCli } from '../src/cli/program.js';
import { createReporter, progressLine } from '../src/cli/render/ui.js';
import { emptyReport, problemLines, type RenderReport } from '../src/engine/report/render-report.js';

// eslint-disable-next-line no-control-regex -- the escape that starts an ANSI colour sequence
const ansi = /\x1b\[/;

function io(env: NodeJS.ProcessEnv, stderrIsTTY: boolean): CliIO & { err: () => string; out: () => string } {
  const [stdout, stderr] = [new PassThrough(), new PassThrough()];
  let err = '';
  let out = '';
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return {
    stdin: new PassThrough(),
    stdout,
    stderr,
    stdoutIsTTY: false,
    stderrIsTTY,
    env,
    cwd: process.cwd(),
    platform: process.platform,
    isRoot: false,
    signal: new AbortController().signal,
    err: () => err,
    out: () => out,
  };
}

describe('colour', () => {
  it.each([
    [undefined, {}, true, true],
    [undefined, {}, false, false],
    [undefined, { NO_COLOR: '1' }, true, false],
    [undefined, { NO_COLOR: '' }, true, true],
    [false, {}, true, false],
    [true, {}, false, true],
    [true, { NO_COLOR: '1' }, false, true],
    [undefined, { FORCE_COLOR: '1' }, false, true],
    [undefined, { FORCE_COLOR: '0' }, true, false],
    [undefined, { FORCE_COLOR: '1', NO_COLOR: '1' }, false, true],
    [undefined, { TERM: 'dumb' }, true, false],
    [true, { TERM: 'dumb' }, true, true],
  ] as const)('flag %s, env %j, terminal %s: colour %s', (flag, env, tty, coloured) => {
    expect(colorLevel(flag, env, tty) > 0).toBe(coloured);
  });

  it('reads the last of --color and --no-color', () => {
    expect(colorFlag(['render', 'a.html'])).toBeUndefined();
    expect(colorFlag(['--color', 'render', '--no-color'])).toBe(false);
    expect(colorFlag(['render', '--no-color', '--color'])).toBe(true);
  });

  it('colours an error on a terminal, and not with NO_COLOR or --no-color (which commander used to refuse)', async () => {
    for (const [env, args, coloured] of [
      [{}, [], true],
      [{ NO_COLOR: '1' }, [], false],
      [{}, ['--no-color'], false],
    ] as const) {
      const cli = io(env, true);
      expect(await runCli(['render', 'no-such-file.html', ...args], cli)).toBe(2);
      expect(cli.err()).toContain('input not found: no-such-file.html');
      expect(ansi.test(cli.err()), JSON.stringify({ env, args })).toBe(coloured);
    }
  });

  it('lists the global options in a command help', async () => {
    const cli = io({}, false);
    expect(await runCli(['render', '--help'], cli)).toBe(0);
    expect(cli.out()).toMatch(/Global Options:[\s\S]*--debug[\s\S]*--color[\s\S]*--no-color/);
  });

  it('writes a default as the other flags do: deliveries\' --limit said (default: "50")', async () => {
    const cli = io({}, false);
    expect(await runCli(['webhooks', 'deliveries', '--help'], cli)).toBe(0);
    expect(cli.out()).toMatch(/--limit <n>\s+how many \(default 50\)\n/);
  });

  it('names the flag (and its variable) behind a bad webhooks setting, where it said "invalid request: 1 field failed validation"', async () => {
    for (const [args, env, line] of [
      [['deliveries', '--limit', 'abc'], {}, '--limit: must be a whole number (got "abc")'],
      [['list', '--database', 'mysql://db/x'], {}, '--database (PDFRENDER_DATABASE_URL): must be a PostgreSQL URL'],
      [
        ['add', 'http://127.0.0.1:9/x'],
        { PDFRENDER_ALLOW_PRIVATE_WEBHOOKS: 'maybe' },
        '--allow-private-webhooks (PDFRENDER_ALLOW_PRIVATE_WEBHOOKS): must be true or false',
      ],
    ] as const) {
      const cli = io(env, false);
      expect(await runCli(['webhooks', ...args], cli)).toBe(2);
      expect(cli.err()).toContain(`pdfrender: ${line}`);
    }
  });
});

describe('progress and errors', () => {
  const outcome = (input: string, error?: string) => ({
    input,
    output: error ? null : `${input}.pdf`,
    pages: 1,
    bytes: 1000,
    ms: 10,
    warnings: [],
    ...(error && { error, errorCode: 'RENDER_PDF_FAILED' }),
  });

  it('numbers each line of a log, and prints errors on stderr with --json too', async () => {
    const cli = io({}, false);
    const log = await createReporter('normal', false, cli.stdout, cli.stderr, painter(0));
    log.start(3);
    log.document(outcome('a.html'));
    log.document(outcome('b.html', 'it broke'));
    log.document(outcome('c.html'));
    expect(cli.err().split('\n').filter(Boolean)).toEqual([
      '✔ [1/3] a.html → a.html.pdf (1 page, 1.0 kB, 10 ms)',
      '✖ b.html: it broke',
      '✔ [3/3] c.html → c.html.pdf (1 page, 1.0 kB, 10 ms)',
    ]);

    const json = io({}, false);
    const quiet = await createReporter('json', false, json.stdout, json.stderr, painter(0));
    quiet.start(1);
    quiet.document(outcome('b.html', 'it broke'));
    quiet.finish([outcome('b.html', 'it broke')], 10);
    expect(json.err()).toBe('✖ b.html: it broke\n');
    expect(JSON.parse(json.out()).failed).toBe(1);
  });

  it('prints one ! line per kind of problem the report holds (not one per URL or character), the detail only the log may see, and nothing of it with --quiet', async () => {
    const blocked = [
      {
        url: 'http://10.0.0.1/a.png',
        code: 'NETWORK_POLICY' as const,
        reason: 'blocked by the network policy (public addresses only)',
      },
    ];
    const failed = [1, 2, 3, 4].map((n) => ({
      url: `https://cdn.test/${n}.css`,
      code: 'HTTP_ERROR' as const,
      reason: 'HTTP 404',
    }));
    const report: RenderReport = {
      ...emptyReport(),
      missingGlyphs: [
        { script: 'Han', count: 120, characters: '中文字', where: ['body'] },
        { script: 'Thai', count: 3, characters: 'ไทย', where: ['footer'] },
      ],
      resources: { blocked, failed, brokenImages: [] },
      scriptErrors: { count: 2, more: false, messages: [{ kind: 'exception', message: 'x is not defined' }] },
    };
    // The log's own copy of a blocked URL carries what its name resolved to; the report never does.
    const issues = { blocked: [{ ...blocked[0]!, detail: 'cdn.test resolved to 10.0.0.1' }], failed, report };
    const loud = io({}, false);
    const normal = await createReporter('normal', false, loud.stdout, loud.stderr, painter(0));
    normal.start(1);
    normal.document({ ...outcome('a.html'), ...issues });
    expect(loud.err().split('\n').filter(Boolean)).toEqual([
      '! a.html: 123 characters no font could draw (Han 120: 中文字 in the body; Thai 3: ไทย in the footer)',
      '! a.html: 5 resources did not load: https://cdn.test/1.css (HTTP 404), https://cdn.test/2.css (HTTP 404), https://cdn.test/3.css (HTTP 404)',
      '! a.html: 2 script errors: uncaught: x is not defined',
      '! a.html: blocked http://10.0.0.1/a.png: blocked by the network policy (public addresses only) (cdn.test resolved to 10.0.0.1)',
      '✔ a.html → a.html.pdf (1 page, 1.0 kB, 10 ms)',
    ]);
    // A document a failOn rule failed: its error says the kind that failed it, the others get their line.
    const strict = io({}, false);
    const failing = await createReporter('normal', false, strict.stdout, strict.stderr, painter(0));
    failing.start(1);
    const scriptLine = problemLines(report).scriptErrors!;
    failing.document({ ...outcome('a.html', `failOn scriptErrors: ${scriptLine}`), report });
    expect(strict.err().split('\n').filter(Boolean)).toEqual([
      `! a.html: ${problemLines(report).missingGlyphs}`,
      `! a.html: ${problemLines(report).resourceErrors}`,
      `✖ a.html: failOn scriptErrors: ${scriptLine}`,
    ]);
    const silent = io({}, false);
    const quiet = await createReporter('quiet', false, silent.stdout, silent.stderr, painter(0));
    quiet.start(1);
    quiet.document({ ...outcome('a.html'), ...issues, warnings: ['a header image was left out'] });
    expect(silent.err()).toBe('');
  });

  it('shows count, rate and time left on a terminal', () => {
    expect(progressLine({ finished: 0, total: 200, failed: 0, seconds: 0.5 }, painter(0))).toBe('Rendering 0/200');
    expect(progressLine({ finished: 50, total: 200, failed: 2, seconds: 10 }, painter(0))).toBe(
      'Rendering 50/200, 5.0 docs/s, 30 s left (2 failed)',
    );
    expect(progressLine({ finished: 10, total: 1000, failed: 0, seconds: 10 }, painter(0))).toBe(
      'Rendering 10/1000, 1.0 docs/s, 16 min 30 s left',
    );
    expect(progressLine({ finished: 2, total: 241, failed: 0, seconds: 1 }, painter(0))).toBe(
      'Rendering 2/241, 2.0 docs/s, 2 min 0 s left',
    );
  });
});
