/**
 * Preloaded with `node --import` (through NODE_OPTIONS) in a process a test starts: appends the URL
 * of every module the process resolves through the ESM loader whose URL contains
 * RECORD_MODULES_MATCHING to the file RECORD_MODULES_TO, so the test can tell what was loaded.
 */
import { register } from 'node:module';

const hooks = `
import { appendFileSync } from 'node:fs';
let file, matching;
export function initialize(data) { ({ file, matching } = data); }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (resolved.url.includes(matching)) appendFileSync(file, resolved.url + '\\n');
  return resolved;
}`;

register(`data:text/javascript,${encodeURIComponent(hooks)}`, {
  data: { file: process.env.RECORD_MODULES_TO, matching: process.env.RECORD_MODULES_MATCHING },
});
