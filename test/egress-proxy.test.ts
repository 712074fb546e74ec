/**
 * The egress proxy on its own, with real sockets on loopback and a DNS answer the test gives:
 * every resolved address is checked, the host is resolved once per connection, and the proxy
 * dials the address it checked. Plus the host rules of the policy.
 */
import { createServer, request, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusalHeader, startEgressProxy, type EgressProxy } from '../src/network/egress-proxy.js';
import { pinnedRequest } from '../src/network/pinned-request.js';
import { reserveProxyPort } from '../src/network/proxy-port.js';
import { hostAllowed, hostDecision } from '../src/network/policy.js';
import { until } from './support/wait.js';

let target: Server;
let targetPort: number;
const seen: string[] = [];

beforeAll(async () => {
  target = createServer((req, res) => {
    seen.push(`${req.headers.host} ${req.url}`);
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end('target says hi');
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  targetPort = (target.address() as AddressInfo).port;
});

afterAll(() => target.close());

/** GET an absolute URL through the proxy (plain http). */
function viaProxy(
  proxy: EgressProxy,
  url: string,
): Promise<{ status: number; body: string; refused: string | undefined }> {
  const { port } = new URL(proxy.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: url, headers: { host: new URL(url).host } }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body, refused: res.headers[refusalHeader] as string | undefined }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Open a CONNECT tunnel through the proxy; resolves with the proxy's status. */
function connectVia(proxy: EgressProxy, authority: string): Promise<number> {
  const { port } = new URL(proxy.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'CONNECT', path: authority });
    req.on('connect', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('response', (res) => resolve(res.statusCode ?? 0));
    req.on('error', reject);
    req.end();
  });
}

describe('egress proxy', () => {
  it('refuses a name when any of its addresses is not public, before dialling', async () => {
    const proxy = await startEgressProxy({ network: 'public', allowHosts: [] }, async () => [
      '93.184.216.34',
      '127.0.0.1',
    ]);
    try {
      const answer = await viaProxy(proxy, `http://mixed.test:${targetPort}/x`);
      expect(answer.status).toBe(403);
      // The page may read the proxy's answer, so it carries the code only; the detail is remembered for the operator.
      expect(answer.refused).toBe('NETWORK_POLICY');
      expect(proxy.refusal('mixed.test', String(targetPort), 0)).toEqual({
        code: 'NETWORK_POLICY',
        reason: 'blocked by the network policy (public addresses only)',
        detail: 'mixed.test resolves to 127.0.0.1, which is not a public address (loopback)',
      });
      expect(proxy.refusal('mixed.test', String(targetPort), Date.now() + 1000)).toBeUndefined();
      expect(await connectVia(proxy, `mixed.test:${targetPort}`)).toBe(403);
      expect(await connectVia(proxy, `127.0.0.1:${targetPort}`)).toBe(403);
      expect(await connectVia(proxy, `[::1]:${targetPort}`)).toBe(403);
      expect(seen).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it('resolves once per request and dials the address it checked, whatever the name resolves to next', async () => {
    // The answer changes on every lookup, as a rebinding DNS server's would.
    const answers = [['127.0.0.1'], ['10.9.9.9'], ['10.9.9.9']];
    let lookups = 0;
    const proxy = await startEgressProxy(
      { network: 'public', allowHosts: ['pinned.test'] },
      async () => answers[lookups++]!,
    );
    try {
      const answer = await viaProxy(proxy, `http://pinned.test:${targetPort}/pinned`);
      expect(answer).toMatchObject({ status: 200, body: 'target says hi' });
      expect(lookups).toBe(1);
      expect(seen).toEqual([`pinned.test:${targetPort} /pinned`]);
    } finally {
      seen.length = 0;
      await proxy.close();
    }
  });

  it('tunnels to an allowed host, and refuses everything under --block-network', async () => {
    const open = await startEgressProxy({ network: 'all', allowHosts: [] });
    const closed = await startEgressProxy({ network: 'none', allowHosts: [] });
    try {
      expect(await connectVia(open, `127.0.0.1:${targetPort}`)).toBe(200);
      expect(await connectVia(closed, `127.0.0.1:${targetPort}`)).toBe(403);
      expect((await viaProxy(closed, `http://127.0.0.1:${targetPort}/`)).refused).toBe('NETWORK_BLOCKED');
    } finally {
      await open.close();
      await closed.close();
    }
  });

  it('takes the port reserved before it started: requests that came first wait, then get its policy', async () => {
    // The CLI gives Chromium this port before pdfrender has loaded (early-start.ts).
    const url = await reserveProxyPort();
    const early = viaProxy({ url } as EgressProxy, `http://127.0.0.1:${targetPort}/early`);
    const earlyTunnel = connectVia({ url } as EgressProxy, `127.0.0.1:${targetPort}`);
    // Both are held at the reserved port (the hand-off the CLI and the proxy share) before the proxy starts.
    const handoff = (globalThis as Record<symbol, { reserved?: { waiting: Set<unknown> } }>)[
      Symbol.for('pdfrender.proxyPort')
    ];
    await until(() => handoff?.reserved?.waiting.size === 2, 'both early requests at the reserved port');
    const proxy = await startEgressProxy({ network: 'public', allowHosts: [] });
    try {
      expect(proxy.url).toBe(url);
      expect((await early).refused).toBe('NETWORK_POLICY');
      expect(await earlyTunnel).toBe(403);
      expect((await viaProxy(proxy, `http://127.0.0.1:${targetPort}/later`)).refused).toBe('NETWORK_POLICY');
      expect(seen.filter((line) => /early|later/.test(line))).toEqual([]);
      // Taken once: the next proxy binds a port of its own.
      const other = await startEgressProxy({ network: 'all', allowHosts: [] });
      expect(other.url).not.toBe(url);
      await other.close();
    } finally {
      await proxy.close();
    }
    // Closed with the proxy: nothing listens there any more.
    const refused = await new Promise((resolve) =>
      connect(Number(new URL(url).port), '127.0.0.1')
        .once('connect', () => resolve('connected'))
        .once('error', (error) => resolve((error as NodeJS.ErrnoException).code)),
    );
    expect(refused).toBe('ECONNREFUSED');
  });
});

describe('egress proxy against a misbehaving upstream', () => {
  /** A raw TCP server on loopback that writes `reply` to every connection, then maybe closes. */
  async function rawServer(reply: string, close: boolean) {
    const { createServer: createTcpServer } = await import('node:net');
    const server = createTcpServer((socket) => {
      socket.on('error', () => undefined);
      socket.once('data', () => (close ? socket.end(reply) : socket.write(reply)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, port: (server.address() as AddressInfo).port };
  }

  it('answers 502 for a status Node cannot repeat, and keeps running', async () => {
    const upstream = await rawServer('HTTP/1.1 099 Nope\r\nContent-Length: 0\r\n\r\n', true);
    const proxy = await startEgressProxy({ network: 'all', allowHosts: [] });
    try {
      expect((await viaProxy(proxy, `http://127.0.0.1:${upstream.port}/`)).status).toBe(502);
      expect((await viaProxy(proxy, `http://127.0.0.1:${targetPort}/after`)).status).toBe(200);
    } finally {
      seen.length = 0;
      upstream.server.close();
      await proxy.close();
    }
  });

  it("drops an upstream's own blocked header, so only the proxy can report a block", async () => {
    const upstream = await rawServer(`HTTP/1.1 200 OK\r\n${refusalHeader}: fake\r\nContent-Length: 2\r\n\r\nok`, true);
    const proxy = await startEgressProxy({ network: 'all', allowHosts: [] });
    try {
      expect(await viaProxy(proxy, `http://127.0.0.1:${upstream.port}/`)).toEqual({
        status: 200,
        body: 'ok',
        refused: undefined,
      });
    } finally {
      upstream.server.close();
      await proxy.close();
    }
  });

  it('ends the client side when the upstream stops short', async () => {
    const upstream = await rawServer('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc', true);
    const proxy = await startEgressProxy({ network: 'all', allowHosts: [] });
    try {
      await expect(viaProxy(proxy, `http://127.0.0.1:${upstream.port}/`)).rejects.toThrow('aborted');
    } finally {
      upstream.server.close();
      await proxy.close();
    }
  });
});

describe('pinned requests', () => {
  it('never reuse a socket opened under another policy', async () => {
    const resolver = async () => ['127.0.0.1'];
    const url = new URL(`http://reused.test:${targetPort}/pinned-request`);
    expect((await pinnedRequest(url, { policy: { network: 'all', allowHosts: [] }, resolver })).status).toBe(200);
    // The message is the caller's reason; where the name pointed is the operator's detail.
    await expect(pinnedRequest(url, { policy: { network: 'public', allowHosts: [] }, resolver })).rejects.toMatchObject(
      {
        message: 'blocked by the network policy (public addresses only)',
        refusal: { detail: expect.stringContaining('reused.test resolves to 127.0.0.1') },
      },
    );
    expect(seen).toEqual([`reused.test:${targetPort} /pinned-request`]);
    seen.length = 0;
  });
});

describe('policy host rules', () => {
  it('matches allowed hosts exactly or by *.domain, ignoring case and a trailing dot', () => {
    expect(hostAllowed('Intranet.Local.', ['intranet.local'])).toBe(true);
    expect(hostAllowed('cdn.example.com', ['*.example.com'])).toBe(true);
    expect(hostAllowed('example.com', ['*.example.com'])).toBe(true);
    expect(hostAllowed('badexample.com', ['*.example.com'])).toBe(false);
    expect(hostAllowed('example.com.evil.test', ['example.com'])).toBe(false);
  });

  it.each([
    ['localhost', 'refuse'],
    ['sub.localhost', 'refuse'],
    ['127.0.0.1', 'refuse'],
    ['[::1]', 'refuse'],
    ['169.254.169.254', 'refuse'],
    ['8.8.8.8', 'allow'],
    ['example.com', 'check'],
  ])('under the public policy, %s is %s', (host, verdict) => {
    expect(hostDecision({ network: 'public', allowHosts: [] }, host).verdict).toBe(verdict);
  });
});
