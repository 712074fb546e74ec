/**
 * Node built-ins that a plain render never uses, loaded on their first use instead of with the
 * module that names them. https (with tls) and crypto start OpenSSL: ~5 ms of a cold `pdfrender
 * render`'s CPU, for a document that fetches nothing over https and needs no hash or random bytes.
 */
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

function onFirstUse<T>(name: string): () => T {
  let module: T | undefined;
  return () => (module ??= load(name) as T);
}

/** node:https, loaded when first called for. */
export const nodeHttps = onFirstUse<typeof import('node:https')>('node:https');

/** node:zlib, loaded when first called for. */
export const nodeZlib = onFirstUse<typeof import('node:zlib')>('node:zlib');

/** node:crypto, loaded when first called for. */
export const nodeCrypto = onFirstUse<typeof import('node:crypto')>('node:crypto');
