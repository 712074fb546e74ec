/**
 * The in-process HTTP proxy all of Chromium's traffic goes through (--proxy-server, with loopback
 * no longer bypassed). Request interception cannot see WebSocket, EventSource-in-worker or worker
 * traffic, nor stop a redirect or a DNS answer that changes between check and use; a proxy can:
 * it resolves each host once, checks every address it got, and dials the address it checked.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { connect as netConnect, type AddressInfo, type Socket } from 'node:net';
import { pipeline, type Duplex } from 'node:stream';
import { systemClock, type Clock } from '../clock.js';
import { nodeHttp } from '../lazy-module.js';
import { connectionFailure, connectionFailureOf, type ConnectionFailure } from './connection-failure.js';
import { normalizeHost, type NetworkPolicy } from './policy.js';
import { takeReservedPort } from './proxy-port.js';
import type { Refusal } from './refusal.js';
import { resolveChecked, systemResolver, type Resolver } from './resolve-checked.js';

export interface EgressProxy {
  /** "http://127.0.0.1:<port>", for Chromium's --proxy-server. */
  url: string;
  /** Why the proxy refused `host:port` at or after `since` (ms since the epoch), if it did (for reporting blocked URLs per document). */
  refusal(host: string, port: string, since: number): Refusal | undefined;
  /**
   * Why `host:port` failed to load at or after `since`, if it did and nothing connected there since:
   * a name that does not resolve, or a connection refused, reset or not answered in time.
   */
  failure(host: string, port: string, since: number): ProxyFailure | undefined;
  /** The clock `since` is read on: what the proxy stamps its outcomes with. */
  clock: Clock;
  close(): Promise<void>;
}

/** Header on the proxy's own refusals of plain-http requests (its value the refusal's code), so a page can tell them from a server's 403. */
export const refusalHeader = 'x-pdfrender-blocked';

/**
 * Header on the proxy's own 502 for a plain-http request it could not carry (its value a
 * connection failure's code, or the reason of another failure), so a page can tell it from a server's 502.
 */
export const failureHeader = 'x-pdfrender-failed';

/** Why the proxy could not carry a request: a connection failure, or a load failure with its reason. */
export type ProxyFailure = ConnectionFailure | { code: 'LOAD_FAILED'; reason: string };

/**
 * How a name that does not resolve is reported where the policy lets every address through (the
 * CLI): a load failure under Chromium's own name for it, whether the URL was http or https. (Under
 * the server's policy it is a refusal, as a private address is: see resolve-checked.ts.)
 */
export const unresolvedReason = 'net::ERR_NAME_NOT_RESOLVED';

/** How long a server may take to accept a connection, and then to answer the first bytes sent to it. */
export const answerTimeoutMs = 15_000;
const rememberedRefusals = 1_000;

/**
 * Start a proxy on an ephemeral loopback port that enforces `policy`; `clock` stamps what it
 * refused, for `since`; a server silent for `timeoutMs` has TIMED_OUT.
 */
export async function startEgressProxy(
  policy: NetworkPolicy,
  resolve: Resolver = systemResolver,
  clock: Clock = systemClock,
  timeoutMs = answerTimeoutMs,
): Promise<EgressProxy> {
  // What happened to each host:port lately: a refusal, or a failure (for the per-document report).
  const outcomes = new Map<string, { refused?: Refusal; failed?: ProxyFailure; at: number }>();
  const sockets = new Set<Socket | Duplex>();
  const remember = (key: string, outcome: { refused: Refusal } | { failed: ProxyFailure }) => {
    outcomes.delete(key);
    outcomes.set(key, { ...outcome, at: clock.now() });
    if (outcomes.size > rememberedRefusals) outcomes.delete(outcomes.keys().next().value!);
  };
  // A server that answered is no longer failing: a later failure there is not blamed on the old one.
  const answered = (key: string) => {
    if (outcomes.get(key)?.failed) outcomes.delete(key);
  };
  const keyOf = (host: string, port: string) => `${normalizeHost(host)}:${port}`;
  const recent = (host: string, port: string, since: number) => {
    const outcome = outcomes.get(keyOf(host, port));
    return outcome && outcome.at >= since ? outcome : undefined;
  };

  /**
   * The address to dial for host:port, a refusal (remembered, for the per-document report), or
   * null when a name the policy allows outright does not resolve (it failed to load).
   */
  const pick = async (host: string, port: string): Promise<{ address: string } | { refused: Refusal } | null> => {
    try {
      const chosen = await resolveChecked(policy, host, resolve);
      if ('refused' in chosen) remember(keyOf(host, port), { refused: chosen.refused });
      return chosen;
    } catch {
      remember(keyOf(host, port), { failed: { code: 'LOAD_FAILED', reason: unresolvedReason } });
      return null;
    }
  };

  const track = <T extends Socket | Duplex>(socket: T): T => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    return socket;
  };

  // Plain http: the request line carries an absolute URL.
  const forward = async (req: IncomingMessage, res: ServerResponse) => {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
      if (target.protocol !== 'http:') throw new Error('not http');
    } catch {
      return res.writeHead(400, { [refusalHeader]: 'not a proxy request' }).end();
    }
    const port = target.port || '80';
    const key = keyOf(target.hostname, port);
    // The proxy's own 502 says why, in its header: never to be read as the server's answer.
    const failed = (failure: ProxyFailure) => {
      remember(key, { failed: failure });
      const value = failure.code === 'LOAD_FAILED' ? failure.reason : failure.code;
      return void res.writeHead(502, { [failureHeader]: value }).end();
    };
    const chosen = await pick(target.hostname, port);
    if (!chosen) return res.writeHead(502, { [failureHeader]: unresolvedReason }).end();
    // Only the code: the page can read this response, and the detail is the operator's.
    if ('refused' in chosen) return res.writeHead(403, { [refusalHeader]: chosen.refused.code }).end();
    const headers = { ...req.headers };
    delete headers['proxy-connection'];
    delete headers['proxy-authorization'];
    const upstream = nodeHttp().request({
      host: chosen.address,
      port,
      method: req.method,
      path: `${target.pathname}${target.search}`,
      headers,
      setHost: false,
      // An idle timeout: no answer (or a stall mid-answer) for this long.
      timeout: timeoutMs,
    });
    upstream.on('response', (response) => {
      // Node's parser takes statuses writeHead refuses (099); an upstream must not crash the server.
      const status = response.statusCode ?? 0;
      if (status < 100 || status > 999) {
        response.destroy();
        return failed({ code: 'LOAD_FAILED', reason: 'the answer was not valid HTTP' });
      }
      answered(key);
      // Only the proxy may say a URL was blocked or failed; an upstream's own headers of those names are dropped.
      const headers = response.rawHeaders.flatMap((value, i, all) =>
        i % 2 === 0 && value.toLowerCase() !== refusalHeader && value.toLowerCase() !== failureHeader
          ? [value, all[i + 1]!]
          : [],
      );
      res.writeHead(status, headers);
      // pipeline ends Chromium's side too when the upstream stops short, instead of leaving it open.
      pipeline(response, res, (error) => error && res.destroy());
    });
    upstream.on('timeout', () => upstream.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
    upstream.on('error', (error: NodeJS.ErrnoException) =>
      res.headersSent ? res.destroy() : failed(failureOf(error)),
    );
    req.pipe(upstream);
  };

  // https, ws and wss: a CONNECT tunnel to host:port, opened only to the checked address.
  const tunnel = async (req: IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(req.url ?? '');
    if (!match) return client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    const chosen = await pick(match[1]!, match[2]!);
    if (!chosen) return client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
    if ('refused' in chosen)
      return client.end(`HTTP/1.1 403 Forbidden\r\n${refusalHeader}: ${chosen.refused.code}\r\n\r\n`);
    const key = keyOf(match[1]!, match[2]!);
    // Chromium reads no header of a failed CONNECT: the failure is remembered, for the page guard to ask.
    let connected = false;
    let heard = false;
    const failed = (failure: ProxyFailure) => {
      remember(key, { failed: failure });
      if (!connected) {
        if (client.writable) client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      }
      // A reset, so that Chromium too sees the connection end as the server ended it.
      else (client as Socket).resetAndDestroy?.();
    };
    const upstream = track(netConnect({ host: chosen.address, port: Number(match[2]), timeout: timeoutMs }));
    upstream.once('connect', () => {
      connected = true;
      upstream.setTimeout(0);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      // The tunnel's bytes are opaque, but a server that took the connection and then says nothing to
      // what it was sent (a TLS hello) within the timeout has not answered.
      const awaitAnswer = () => !heard && upstream.setTimeout(timeoutMs);
      upstream.once('data', () => {
        heard = true;
        upstream.setTimeout(0);
        answered(key);
      });
      if (head.length > 0) {
        upstream.write(head);
        awaitAnswer();
      } else client.once('data', awaitAnswer);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.once('timeout', () => {
      failed(connectionFailure('TIMED_OUT'));
      upstream.destroy();
    });
    // The failure's 502 is left to reach Chromium; any other end of the server's side ends Chromium's.
    upstream.once('close', () => (connected || !client.writableEnded) && client.destroy());
    client.once('close', () => upstream.destroy());
    // Refused or not reached; or reset before it said anything (a reset after is the stream's own end).
    upstream.once('error', (error: NodeJS.ErrnoException) => {
      if (!connected || !heard) failed(failureOf(error));
    });
  };

  const makeServer = (): Server => {
    const made = nodeHttp().createServer((req, res) => void forward(req, res).catch(() => res.destroy()));
    made.on(
      'connect',
      (req: IncomingMessage, client: Duplex, head: Buffer) =>
        void tunnel(req, client, head).catch(() => client.destroy()),
    );
    // A plain-http WebSocket upgrade is not expected (Chromium tunnels ws:// with CONNECT); refuse it.
    made.on('upgrade', (_req: IncomingMessage, client: Duplex) => client.end('HTTP/1.1 403 Forbidden\r\n\r\n'));
    made.on('connection', (socket: Socket) => void track(socket));
    return made;
  };
  // The CLI bound the port before Chromium started (proxy-port.ts), and its HTTP server is made on
  // the first connection: a document that loads nothing over the network (a file, say) never loads
  // Node's http module for it (~3 ms of a cold render's CPU). Anywhere else the proxy binds its own.
  let made: Server | undefined;
  const early = takeReservedPort((socket) => {
    (made ??= makeServer()).emit('connection', socket);
    socket.resume(); // it waited paused
  });
  const server = early ? undefined : makeServer();
  if (server) {
    await new Promise<void>((ready, fail) => {
      server.once('error', fail);
      server.listen(0, '127.0.0.1', () => ready());
    });
  }
  const listener = early?.server ?? server!;
  return {
    url: early?.url ?? `http://127.0.0.1:${(server!.address() as AddressInfo).port}`,
    refusal: (host, port, since) => recent(host, port, since)?.refused,
    failure: (host, port, since) => recent(host, port, since)?.failed,
    clock,
    async close() {
      const closed = new Promise<void>((done) => listener.close(() => done()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

// A failed connection as the report names it: refused, reset or timed out, else its errno name (a
// private detail it is not: the server's network is public, or the policy lets every address through).
function failureOf(error: NodeJS.ErrnoException): ProxyFailure {
  return (
    connectionFailureOf(error.code) ?? {
      code: 'LOAD_FAILED',
      reason: typeof error.code === 'string' && /^E[A-Z_]+$/.test(error.code) ? error.code : 'failed to load',
    }
  );
}
