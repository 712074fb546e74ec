/**
 * DNS rebinding guard. A server on loopback without --public-url answers only to the names of
 * this machine: a web page whose own name an attacker re-points at 127.0.0.1 reaches the server
 * with its own name in Host, and is refused, as development servers' allowed-hosts lists do.
 */
import type { MiddlewareHandler } from 'hono';
import type { ServeConfig } from '../config.js';
import { PdfRenderError } from '../../errors.js';
import { addressRange, normalizeAddress } from '../../network/address-spelling.js';
import type { Listening } from '../public-url.js';
import { bracketed, urlHost } from '../public-url.js';

/** Middleware refusing (421 HOST_NOT_ALLOWED) a Host this loopback server does not answer to; a no-op elsewhere. */
export function hostGuard(deps: {
  config: Pick<ServeConfig, 'publicUrl' | 'host'>;
  listening: Listening;
}): MiddlewareHandler {
  // The names this server answers to, worked out once per listening address (which never changes once bound).
  let known: { bound: { address: string; port: number }; names: Set<string> | null } | undefined;
  const namesFor = (bound: { address: string; port: number }) => {
    if (known?.bound !== bound) {
      const names =
        addressRange(bound.address) === 'loopback'
          ? new Set([
              'localhost',
              '127.0.0.1',
              '[::1]',
              urlHost(deps.config.host, bound.address),
              bracketed(normalizeAddress(bound.address) ?? bound.address),
            ])
          : null;
      known = { bound, names };
    }
    return known.names;
  };
  return async (c, next) => {
    const bound = deps.listening.address;
    const host = c.req.header('host');
    // A request without Host is no browser's (app.request() in tests, a bare HTTP/1.0 client).
    if (!deps.config.publicUrl && bound && host !== undefined) {
      const names = namesFor(bound);
      if (names && !answersTo(host, names, bound.port)) {
        throw new PdfRenderError(
          'HOST_NOT_ALLOWED',
          `this server answers to localhost, 127.0.0.1 and [::1] on port ${bound.port}, not to "${host.slice(0, 100)}"; set --public-url to serve another name`,
        );
      }
    }
    await next();
  };
}

// Whether `host` names this loopback server: one of its `names`, on its port.
function answersTo(host: string, names: Set<string>, port: number): boolean {
  if (!/^[a-z0-9.\-[\]:]+$/i.test(host) || !URL.canParse(`http://${host}`)) return false;
  const url = new URL(`http://${host}`);
  return names.has(url.hostname) && Number(url.port || 80) === port;
}
