/**
 * Modules a plain render never uses, loaded on their first use instead of with the module that
 * names them. Node built-ins: for a document that loads nothing over the network and needs no
 * hash, https with tls and crypto (which start OpenSSL, ~5 ms of a cold `pdfrender render`'s CPU),
 * http (~3 ms) and zlib (~1.5 ms) are never loaded. Packages: a require made at run time, which the
 * CLI's bundler leaves as it is, so the package is neither bundled nor compiled at a cold start.
 */
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

/** A function that loads `name` the first time it is called, and returns it. */
export function onFirstUse<T>(name: string): () => T {
  let module: T | undefined;
  return () => (module ??= load(name) as T);
}

/** node:http, loaded when first called for. */
export const nodeHttp = onFirstUse<typeof import('node:http')>('node:http');

/** node:https, loaded when first called for. */
export const nodeHttps = onFirstUse<typeof import('node:https')>('node:https');

/** node:zlib, loaded when first called for. */
export const nodeZlib = onFirstUse<typeof import('node:zlib')>('node:zlib');

/** node:crypto, loaded when first called for. */
export const nodeCrypto = onFirstUse<typeof import('node:crypto')>('node:crypto');
