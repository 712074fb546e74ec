/**
 * The in-process HTTP proxy all of Chromium's traffic goes through (--proxy-server, with loopback
 * no longer bypassed). Request interception cannot see WebSocket, EventSource-in-worker or worker
 * traffic, nor stop a redirect or a DNS answer that changes between check and use; a proxy can:
 * it resolves each host once, checks every address it got, and dials the address it checked.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect as netConnect, type AddressInfo, type Socket } from 'node:net';
import { pipeline, type Duplex } from 'node:stream';
import { normalizeHost, type NetworkPolicy } from './policy.js';
import { takeReservedPort } from './proxy-port.js';
import type { Refusal } from './refusal.js';
import { resolveChecked, systemResolver, type Resolver } from './resolve-checked.js';

export interface EgressProxy {
  /** "http://127.0.0.1:<port>", for Chromium's --proxy-server. */
  url: string;
  /** Why the proxy refused `host:port` at or after `since` (ms since the epoch), if it did (for reporting blocked URLs per document). */
  refusal(host: string, port: string, since: number): Refusal | undefined;
  close(): Promise<void>;
}

/** Header on the proxy's own refusals of plain-http requests (its value the refusal's code), so a page can tell them from a server's 403. */
export const refusalHeader = 'x-pdfrender-blocked';

const dialTimeoutMs = 15_000;
const rememberedRefusals = 1_000;

/** Start a proxy on an ephemeral loopback port that enforces `policy`. */
export async function startEgressProxy(policy: NetworkPolicy, resolve: Resolver = systemResolver): Promise<EgressProxy> {
  const refusals = new Map<string, { refused: Refusal; at: number }>();
  const sockets = new Set<Socket | Duplex>();
  const remember = (key: string, refused: Refusal) => {
    refusals.delete(key);
    refusals.set(key, { refused, at: Date.now() });
    if (refusals.size > rememberedRefusals) refusals.delete(refusals.keys().next().value!);
  };

  /**
   * The address to dial for host:port, a refusal (remembered, for the per-document report), or
   * null when a name the policy allows outright does not resolve (it failed to load).
   */
  const pick = async (host: string, port: string): Promise<{ address: string } | { refused: Refusal } | null> => {
    try {
      const chosen = await resolveChecked(policy, host, resolve);
      if ('refused' in chosen) remember(`${normalizeHost(host)}:${port}`, chosen.refused);
      return chosen;
    } catch {
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
    const chosen = await pick(target.hostname, port);
    if (!chosen) return res.writeHead(502).end();
    // Only the code: the page can read this response, and the detail is the operator's.
    if ('refused' in chosen) return res.writeHead(403, { [refusalHeader]: chosen.refused.code }).end();
    const headers = { ...req.headers };
    delete headers['proxy-connection'];
    delete headers['proxy-authorization'];
    const upstream = httpRequest({ host: chosen.address, port, method: req.method, path: `${target.pathname}${target.search}`, headers, setHost: false, timeout: dialTimeoutMs });
    upstream.on('response', (response) => {
      // Node's parser takes statuses writeHead refuses (099); an upstream must not crash the server.
      const status = response.statusCode ?? 0;
      if (status < 100 || status > 999) {
        response.destroy();
        return void res.writeHead(502).end();
      }
      // Only the proxy may say a URL was blocked; an upstream's own header of that name is dropped.
      const headers = response.rawHeaders.flatMap((value, i, all) => (i % 2 === 0 && value.toLowerCase() !== refusalHeader ? [value, all[i + 1]!] : []));
      res.writeHead(status, headers);
      // pipeline ends Chromium's side too when the upstream stops short, instead of leaving it open.
      pipeline(response, res, (error) => error && res.destroy());
    });
    upstream.on('timeout', () => upstream.destroy(new Error('timed out')));
    upstream.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
    req.pipe(upstream);
  };

  // https, ws and wss: a CONNECT tunnel to host:port, opened only to the checked address.
  const tunnel = async (req: IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(req.url ?? '');
    if (!match) return client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    const chosen = await pick(match[1]!, match[2]!);
    if (!chosen) return client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
    if ('refused' in chosen) return client.end(`HTTP/1.1 403 Forbidden\r\n${refusalHeader}: ${chosen.refused.code}\r\n\r\n`);
    const upstream = track(netConnect({ host: chosen.address, port: Number(match[2]), timeout: dialTimeoutMs }));
    upstream.once('connect', () => {
      upstream.setTimeout(0);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.once('timeout', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
    client.once('close', () => upstream.destroy());
    upstream.once('error', () => client.writable && client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
  };

  const server = createServer((req, res) => void forward(req, res).catch(() => res.destroy()));
  server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => void tunnel(req, client, head).catch(() => client.destroy()));
  // A plain-http WebSocket upgrade is not expected (Chromium tunnels ws:// with CONNECT); refuse it.
  server.on('upgrade', (_req: IncomingMessage, client: Duplex) => client.end('HTTP/1.1 403 Forbidden\r\n\r\n'));
  server.on('connection', (socket: Socket) => void track(socket));
  // The CLI bound the port before Chromium started (proxy-port.ts); anywhere else the proxy binds its own.
  const early = takeReservedPort((socket) => {
    server.emit('connection', socket);
    socket.resume(); // it waited paused
  });
  if (!early) {
    await new Promise<void>((ready, fail) => {
      server.once('error', fail);
      server.listen(0, '127.0.0.1', () => ready());
    });
  }
  const listener = early?.server ?? server;
  return {
    url: early?.url ?? `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    refusal: (host, port, since) => {
      const refused = refusals.get(`${normalizeHost(host)}:${port}`);
      return refused && refused.at >= since ? refused.refused : undefined;
    },
    async close() {
      const closed = new Promise<void>((done) => listener.close(() => done()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
