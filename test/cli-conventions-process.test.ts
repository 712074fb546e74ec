/**
 * The CLI convention that needs a real process (the rest are in-process, in cli-conventions.test.ts):
 * with --json, errors go to stderr and stdout holds the summary alone, as a shell sees them.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pdfrender } from './support/cli.js';
import { removeTempDirs, tempDir } from './support/files.js';

afterAll(removeTempDirs);

describe('as a process', () => {
  it('--json leaves errors on stderr and the summary alone on stdout', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'long.html'), '<style>p { break-after: page }</style><p>1</p><p>2</p><p>3</p>');
    const run = await pdfrender([
      'render',
      join(dir, 'long.html'),
      '-o',
      join(dir, 'long.pdf'),
      '--json',
      '--max-pages',
      '1',
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('long.html: the document has more pages than the limit of 1 (--max-pages)');
    expect(JSON.parse(run.stdout.toString()).documents[0].errorCode).toBe('RENDER_PDF_FAILED');
  });
});
