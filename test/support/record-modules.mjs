/**
 * Preloaded with `node --import` (through NODE_OPTIONS) in a process a test starts: appends the URL
 * or path of every module the process loads whose name contains RECORD_MODULES_MATCHING to the file
 * RECORD_MODULES_TO, so the test can tell what was loaded: through the ESM loader (import, import())
 * and through CommonJS' require, which the bundled CLI uses for the packages it leaves external.
 */
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const file = process.env.RECORD_MODULES_TO;
const matching = process.env.RECORD_MODULES_MATCHING;

const hooks = `
import { appendFileSync } from 'node:fs';
let file, matching;
export function initialize(data) { ({ file, matching } = data); }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (resolved.url.includes(matching)) appendFileSync(file, resolved.url + '\\n');
  return resolved;
}`;

register(`data:text/javascript,${encodeURIComponent(hooks)}`, { data: { file, matching } });

// require() goes through Module._load, which the ESM hooks never see.
const Module = createRequire(import.meta.url)('node:module');
const load = Module._load;
Module._load = function (request, ...rest) {
  if (typeof request === 'string' && request.includes(matching)) appendFileSync(file, `${request}\n`);
  return load.call(this, request, ...rest);
};
