/**
 * A real S3-compatible server for the tests: s3rver (a dev dependency) in a child process on a
 * loopback ephemeral port, with one bucket, its objects in a temp folder. A server that cannot
 * start fails the test with the reason; it never skips.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** s3rver's one built-in account. */
export const s3rverCredentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface LocalS3 {
  endpoint: string;
  bucket: string;
  /** Stop the server (its port then refuses connections) and remove its objects. */
  stop(): Promise<void>;
}

/** Start s3rver with `bucket` made; rejects, saying why, when it cannot start. */
export async function startS3(bucket = 'pdfrender-test'): Promise<LocalS3> {
  const directory = mkdtempSync(join(tmpdir(), 'pdfrender-s3-'));
  // s3rver 3.7 makes its list continuation tokens with DES, which Node 17+ keeps in OpenSSL's legacy provider.
  const child = spawn(
    process.execPath,
    ['--openssl-legacy-provider', resolve(import.meta.dirname, 's3rver.cjs'), directory, bucket],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolveExit) => child.on('close', () => resolveExit()));
  try {
    const port = await new Promise<number>((resolvePort, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const line = /^\{.*\}\n/.exec(stdout)?.[0];
        if (line) resolvePort((JSON.parse(line) as { port: number }).port);
      });
      child.on('error', reject);
      child.on('close', (code) =>
        reject(
          new Error(
            `s3rver (the dev dependency "s3rver") could not start, exit ${code}: ${stderr.trim() || stdout.trim() || 'no output'}`,
          ),
        ),
      );
    });
    return {
      endpoint: `http://127.0.0.1:${port}`,
      bucket,
      async stop() {
        child.stdin.end();
        await exited;
        rmSync(directory, { recursive: true, force: true });
      },
    };
  } catch (error) {
    child.kill('SIGKILL');
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
}
