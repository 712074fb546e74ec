/**
 * A subresource or url whose connection is refused, reset or not answered is reported as such
 * (issue 29 §4), never as the "HTTP 502" of pdfrender's own egress proxy nor as a failed tunnel:
 * real loopback servers, one per behaviour (a port nobody listens on, a server that resets every
 * connection, one that never says a word), reached over http (the proxy answers for Chromium) and
 * https (a CONNECT tunnel), by the page, by its url and by a header's image (fetched by pdfrender).
 */
import { request } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../src/engine/engine.js';
import { failureHeader, startEgressProxy, type EgressProxy } from '../src/network/egress-proxy.js';
import { parseRenderRequest } from '../src/request.js';
import { executablePath } from './support/browser.js';

const engine = createEngine({ executablePath, concurrency: 1, network: { network: 'all', allowHosts: [] } });
const servers: Server[] = [];
let refusedPort: number;
let resetPort: number;
let silentPort: number;

/** A TCP server on an ephemeral loopback port that does `onSocket` with each connection. */
async function tcpServer(onSocket: (socket: Socket) => void): Promise<number> {
  const server = createTcpServer((socket) => {
    socket.on('error', () => undefined);
    onSocket(socket);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  // A port that was just free: bound and closed again, so nothing listens there.
  const closed = createTcpServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  refusedPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  // Resets a connection as soon as it is sent anything (a request line, a TLS hello).
  resetPort = await tcpServer((socket) => socket.once('data', () => socket.resetAndDestroy()));
  // Takes the connection and never says a word.
  silentPort = await tcpServer(() => undefined);
});

afterAll(async () => {
  for (const server of servers) server.close();
  await engine.close();
});

const refused = { code: 'CONNECTION_REFUSED', reason: 'the server refused the connection' };
const reset = { code: 'CONNECTION_RESET', reason: 'the server reset the connection' };
const timedOut = { code: 'TIMED_OUT', reason: 'the server did not answer in time' };

describe('a connection refused or reset', () => {
  it("is reported as such for the page's images, http and https alike, not as the proxy's HTTP 502", async () => {
    const images = {
      [`http://127.0.0.1:${refusedPort}/a.png`]: refused,
      [`https://127.0.0.1:${refusedPort}/b.png`]: refused,
      [`http://127.0.0.1:${resetPort}/c.png`]: reset,
      [`https://127.0.0.1:${resetPort}/d.png`]: reset,
    };
    const html = `<p>x</p>${Object.keys(images)
      .map((url) => `<img src="${url}">`)
      .join('')}`;
    const { network } = await engine.render(parseRenderRequest({ htmlContent: html }));
    expect(network.blocked).toEqual([]);
    expect(Object.fromEntries(network.failed.map(({ url, code, reason }) => [url, { code, reason }]))).toEqual(images);
  });

  it("fails a url that refuses or resets the connection saying so, not 'answered HTTP 502'", async () => {
    for (const [url, reason] of [
      [`http://127.0.0.1:${refusedPort}/`, refused.reason],
      [`https://127.0.0.1:${refusedPort}/`, refused.reason],
      [`http://127.0.0.1:${resetPort}/`, reset.reason],
    ]) {
      await expect(engine.render(parseRenderRequest({ url })), url).rejects.toMatchObject({
        code: 'RENDER_PDF_FAILED',
        message: `url ${url} was not loaded: ${reason}`,
      });
    }
  });

  it("reports a header's image that pdfrender fetched itself in the same words", async () => {
    const logo = `http://127.0.0.1:${refusedPort}/logo.png`;
    const { network } = await engine.render(
      parseRenderRequest({ htmlContent: '<p>x</p>', headerHtmlContent: `<img src="${logo}">`, marginTop: '1in' }),
    );
    expect(network.failed).toEqual([expect.objectContaining({ url: logo, ...refused })]);
  });
});

describe('a server that never answers', () => {
  /** The proxy's answer to a plain-http GET of `url`: its status and failure header. */
  function viaProxy(proxy: EgressProxy, url: string): Promise<{ status: number; failed: unknown }> {
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: new URL(proxy.url).port, path: url }, (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, failed: res.headers[failureHeader] });
      });
      req.on('error', reject);
      req.end();
    });
  }

  /** Open a CONNECT tunnel, send a hello through it, and resolve when the proxy ends it. */
  function tunnelClosed(proxy: EgressProxy, authority: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: new URL(proxy.url).port, method: 'CONNECT', path: authority });
      req.on('connect', (_res, socket) => {
        socket.on('error', () => undefined);
        socket.on('close', () => resolve());
        socket.write('hello');
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('has TIMED_OUT after the proxy waited its timeout, over http and through a tunnel', async () => {
    const proxy = await startEgressProxy({ network: 'all', allowHosts: [] }, undefined, undefined, 300);
    try {
      const since = proxy.clock.now();
      expect(await viaProxy(proxy, `http://127.0.0.1:${silentPort}/slow.png`)).toEqual({
        status: 502,
        failed: 'TIMED_OUT',
      });
      expect(proxy.failure('127.0.0.1', String(silentPort), since)).toEqual(timedOut);
      // The tunnel's bytes are opaque, but a hello left unanswered for the timeout is silence too.
      const tunnelled = proxy.clock.now();
      await tunnelClosed(proxy, `127.0.0.1:${silentPort}`);
      expect(proxy.failure('127.0.0.1', String(silentPort), tunnelled)).toEqual(timedOut);
      expect(await viaProxy(proxy, `http://127.0.0.1:${refusedPort}/`)).toEqual({
        status: 502,
        failed: 'CONNECTION_REFUSED',
      });
    } finally {
      await proxy.close();
    }
  });
});
