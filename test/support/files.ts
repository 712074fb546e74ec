/** Temporary folders with real files, removed after each test file. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const created: string[] = [];

/** A new empty folder under the system's temp dir. */
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pdfrender-test-'));
  created.push(dir);
  return dir;
}

/** Write `files` (name to contents) into a new temp folder and return its path. */
export async function folderWith(files: Record<string, string | Uint8Array>): Promise<string> {
  const dir = await tempDir();
  await Promise.all(Object.entries(files).map(([name, contents]) => writeFile(join(dir, name), contents)));
  return dir;
}

/** Remove every folder made by this module. */
export async function removeTempDirs(): Promise<void> {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** A 2x2 red PNG, for tests that need a raster image on disk or over HTTP. */
export const redPng = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4z8AARAwQCgAf7gP9i18U1AAAAABJRU5ErkJggg==',
  'base64',
);

/** A script that keeps a document's renderer busy for `ms` (a heavy document, as far as the browser can tell). */
export const busyScript = (ms: number) =>
  `<script>const end = Date.now() + ${ms}; while (Date.now() < end) {}</script>`;
