/**
 * The flags of `pdfrender render` come from their declarations (render-flags.ts, run-options.ts,
 * request-flags.ts): every option the command has is declared, every declared flag is on the
 * command with its schema's help, commander's values come back typed, and a bad value is refused
 * naming its flag. No render: the command is built and parsed, never run.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CliIO } from '../src/cli/io.js';
import { renderCommand } from '../src/cli/render/render-command.js';
import { renderFlags } from '../src/cli/render/render-flags.js';
import { requestOptions } from '../src/cli/render/request-flags.js';
import { runFlags } from '../src/cli/run-options.js';
import { PdfRenderError } from '../src/errors.js';

const io: CliIO = {
  stdin: new PassThrough(),
  stdout: new PassThrough(),
  stderr: new PassThrough(),
  stdoutIsTTY: false,
  stderrIsTTY: false,
  env: {},
  cwd: process.cwd(),
  platform: process.platform,
  isRoot: false,
  signal: new AbortController().signal,
};

/** The render command with `argv` parsed into its option values (its action is not run). */
function parsed(argv: string[]) {
  const command = renderCommand(io, () => {});
  command.parseOptions(argv);
  return command.opts();
}

/** The error `read` throws. */
function refusal(read: () => unknown): PdfRenderError {
  const error = (() => {
    try {
      read();
    } catch (caught) {
      return caught;
    }
  })();
  expect(error).toBeInstanceOf(PdfRenderError);
  return error as PdfRenderError;
}

describe('render flags', () => {
  it('puts every declared flag on the command with its help, and no option that is not declared', () => {
    const declared = [...renderFlags.options(), ...requestOptions(), ...runFlags.options()];
    const help = (options: readonly { flags: string; description: string }[]) =>
      Object.fromEntries(options.map((option) => [option.flags, option.description]));
    expect(help(renderCommand(io, () => {}).options)).toEqual(help(declared));
    // The switches say what they do, not "(default false)" as request fields' booleans do.
    expect(help(renderFlags.options())).toMatchObject({
      '-o, --output <file>': 'the PDF for a single input (- for standard output)',
      '--watch': expect.stringMatching(/^render again whenever .*\(Ctrl-C stops\)$/),
      '-q, --quiet': 'print only errors',
    });
  });

  it("reads commander's values typed, switches off when absent", () => {
    expect(renderFlags.read(parsed(['a.html', '-o', 'a.pdf', '--keep-folders', '-q']))).toEqual({
      output: 'a.pdf',
      outDir: undefined,
      keepFolders: true,
      request: undefined,
      watch: false,
      assetsDir: [],
      json: false,
      quiet: true,
    });
    expect(renderFlags.read(parsed(['--out-dir', 'pdfs', '--request', 'r.json', '--watch', '--json']))).toMatchObject({
      outDir: 'pdfs',
      request: 'r.json',
      watch: true,
      json: true,
      keepFolders: false,
    });
    // --assets-dir is repeatable: every folder given is kept, in order.
    expect(
      renderFlags.read(parsed(['a.html', '--assets-dir', 'templates', '--assets-dir', 'fonts'])).assetsDir,
    ).toEqual(['templates', 'fonts']);
  });

  it('reads run options by setting, not by the name commander gives their flag (--allow-host is allowHosts)', () => {
    const run = runFlags.read(parsed(['--allow-host', 'a.test', '--allow-host', 'b.test', '--max-pages', '7']));
    expect(run).toMatchObject({ allowHosts: ['a.test', 'b.test'], maxPages: 7 });
  });

  it('refuses a value of the wrong type, naming its flag', () => {
    const error = refusal(() => renderFlags.read({ output: true, keepFolders: 'yes' }));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message.split('\n')).toEqual([
      expect.stringMatching(/^--output: .*string/),
      expect.stringMatching(/^--keep-folders: .*boolean/),
    ]);
    expect(refusal(() => runFlags.read(parsed(['--browser-recycle-after', 'x']))).message).toMatch(
      /^--browser-recycle-after: /,
    );
  });
});
