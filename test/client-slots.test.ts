/**
 * One client cannot hold every connection slot (issue 27 §2): connections from one address are
 * capped (a proxy --trust-proxy trusts is not), and a body that trickles below --min-upload-rate
 * after --upload-grace is cut with 408. A real server on loopback over real TCP; a second client
 * comes from 127.0.0.2, which loopback routes like 127.0.0.1.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../src/engine/engine.js';
import { connectionKey } from '../src/server/edge/connection-cap.js';
import { loadServeConfig } from '../src/server/config.js';
import { executablePath } from './support/browser.js';
import { removeTempDirs } from './support/files.js';
import { startServer, type TestServer } from './support/server.js';
import { until } from './support/wait.js';

// No test here renders: the engine is never started.
let engine: Engine;

beforeAll(() => {
  engine = createEngine({ executablePath, concurrency: 1, timeoutMs: 10_000 });
});

afterAll(async () => {
  await engine.close();
  await removeTempDirs();
});

/** A raw connection from `from`, and what the server did with it: its answer, and whether it closed it. */
interface Client {
  socket: Socket;
  answer: string;
  closedByServer: boolean;
}

function open(server: TestServer, from: string): Promise<Client> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ port: Number(port), host: '127.0.0.1', localAddress: from });
    const client: Client = { socket, answer: '', closedByServer: false };
    socket.on('data', (chunk: Buffer) => (client.answer += chunk.toString()));
    socket.on('end', () => (client.closedByServer = true));
    socket.on('error', () => (client.closedByServer = true));
    socket.once('connect', () => resolve(client));
    socket.once('error', reject);
  });
}

/** A webhook registration of exactly `size` bytes (JSON padded with spaces): a route that reads its body whole. */
function webhookRequest(server: TestServer, size: number): { head: string; body: string } {
  const json = JSON.stringify({ url: 'http://127.0.0.1:9/hook' });
  const body = json + ' '.repeat(size - json.length);
  const { host } = new URL(server.url);
  return {
    head: `POST /api/webhooks HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
    body,
  };
}

/** GET /healthz from `from` on a fresh connection: the status line, or '' when the server closed it unanswered. */
async function healthz(server: TestServer, from: string): Promise<string> {
  const client = await open(server, from);
  const { host } = new URL(server.url);
  client.socket.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
  await new Promise((resolve) => client.socket.once('close', resolve));
  return client.answer.split('\r\n')[0]!;
}

/**
 * Send `body` at `perSecond` bytes a second (catching up after a stalled timer, so a busy machine
 * does not make it slower), until it is all sent or the server closed the connection; the bytes sent.
 */
function trickle(client: Client, body: string, perSecond: number): Promise<number> {
  return new Promise((resolve) => {
    const started = performance.now();
    let sent = 0;
    const timer = setInterval(() => {
      if (client.socket.destroyed || client.closedByServer || sent >= body.length) {
        clearInterval(timer);
        resolve(sent);
        return;
      }
      const due = Math.min(body.length, Math.floor(((performance.now() - started) / 1000) * perSecond));
      if (due > sent) client.socket.write(body.slice(sent, due));
      sent = Math.max(sent, due);
    }, 50);
  });
}

describe('connections per address', () => {
  it('closes one address’s connections past the cap at once, so another address’s /healthz still answers', async () => {
    // Every global slot could go to one address (30 < 40), and the trickles would last the test
    // (no rate applies within the grace): only the per-address cap stands between them and /healthz.
    const server = await startServer(
      {
        maxConnections: 30,
        maxConnectionsPerAddress: 5,
        uploadGrace: '60s',
        requestTimeout: '60s',
      },
      { engine },
    );
    const attackers: Client[] = [];
    try {
      const { head, body } = webhookRequest(server, 1000);
      for (let i = 0; i < 40; i++) {
        const client = await open(server, '127.0.0.1');
        client.socket.write(head + body[0]);
        attackers.push(client);
      }
      const trickles = attackers.map((client) => trickle(client, body.slice(1), 2));

      for (let i = 0; i < 5; i++) expect(await healthz(server, '127.0.0.2')).toBe('HTTP/1.1 200 OK');
      // The 35 past the cap were closed unanswered; the 5 within it are still being read.
      const refused = await until(
        () => attackers.filter((client) => client.closedByServer).length >= 35 && attackers,
        'the connections past the cap to close',
        5_000,
      );
      expect(refused.filter((client) => client.closedByServer && client.answer === '')).toHaveLength(35);
      expect(attackers.filter((client) => !client.closedByServer)).toHaveLength(5);
      // Said once for the address, not once per connection.
      const said = server.events.filter((event) => /--max-connections-per-address/.test(event.message));
      expect(said).toHaveLength(1);
      expect(said[0]!.message).toMatch(/127\.0\.0\.1/);

      // A slot freed is the address's again.
      attackers.find((client) => !client.closedByServer)!.socket.destroy();
      expect(await until(async () => (await healthz(server, '127.0.0.1')) || undefined, 'a free slot', 5_000)).toBe(
        'HTTP/1.1 200 OK',
      );
      for (const client of attackers) client.socket.destroy();
      await Promise.all(trickles);
    } finally {
      for (const client of attackers) client.socket.destroy();
      await server.close();
    }
  });

  it('does not count a proxy --trust-proxy trusts, whose connections all come from its one address', async () => {
    const server = await startServer({ maxConnectionsPerAddress: 2, trustProxy: '127.0.0.1' }, { engine });
    const held: Client[] = [];
    try {
      const { host } = new URL(server.url);
      const hold = async (from: string) => {
        const client = await open(server, from);
        client.socket.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\n`);
        held.push(client);
        return client;
      };
      // The trusted proxy holds 6 connections and still gets a seventh answered.
      for (let i = 0; i < 6; i++) await hold('127.0.0.1');
      expect(await healthz(server, '127.0.0.1')).toBe('HTTP/1.1 200 OK');
      // An address it does not trust is capped at 2.
      const direct = [await hold('127.0.0.2'), await hold('127.0.0.2')];
      expect(await healthz(server, '127.0.0.2')).toBe('');
      expect(held.filter((client) => client.closedByServer)).toEqual([]);
      direct[0]!.socket.destroy();
      expect(await until(async () => (await healthz(server, '127.0.0.2')) || undefined, 'a free slot', 5_000)).toBe(
        'HTTP/1.1 200 OK',
      );
    } finally {
      for (const client of held) client.socket.destroy();
      await server.close();
    }
  });

  it('counts an IPv6 client by its /64, an IPv4-mapped one as IPv4, and reads the setting', () => {
    expect(connectionKey('2001:db8:1:2::1')).toBe(connectionKey('2001:db8:1:2:ffff::9'));
    expect(connectionKey('2001:db8:1:2::1')).not.toBe(connectionKey('2001:db8:1:3::1'));
    expect(connectionKey('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(connectionKey('192.0.2.1')).not.toBe(connectionKey('192.0.2.2'));
    expect(loadServeConfig({}, {}, '/srv')).toMatchObject({
      maxConnectionsPerAddress: 100,
      minUploadRate: 1024,
      uploadGrace: 10_000,
    });
    expect(
      loadServeConfig(
        {},
        {
          PDFRENDER_MAX_CONNECTIONS_PER_ADDRESS: '20',
          PDFRENDER_MIN_UPLOAD_RATE: '4kb/s',
          PDFRENDER_UPLOAD_GRACE: '2s',
        },
        '/srv',
      ),
    ).toMatchObject({ maxConnectionsPerAddress: 20, minUploadRate: 4096, uploadGrace: 2000 });
    expect(() => loadServeConfig({ maxConnectionsPerAddress: '0' }, {}, '/srv')).toThrow(
      /--max-connections-per-address \(PDFRENDER_MAX_CONNECTIONS_PER_ADDRESS\): must be at least 1/,
    );
  });
});

describe('the minimum upload rate', () => {
  it('cuts a body trickling below --min-upload-rate with 408, and takes the same body at twice the rate past the grace', async () => {
    const server = await startServer({ minUploadRate: '1kb', uploadGrace: '1s' }, { engine });
    try {
      const { head, body } = webhookRequest(server, 3000);
      const [slow, brisk] = [await open(server, '127.0.0.1'), await open(server, '127.0.0.2')];
      slow.socket.write(head);
      brisk.socket.write(head);
      // At 300 B/s the body takes 10 s, well within --request-timeout (60 s): only the rate cuts it,
      // at about 1.4 s. At 2 kB/s it takes 1.5 s, past the grace: the bytes it sends keep it going.
      const [slowSent, briskSent] = await Promise.all([trickle(slow, body, 300), trickle(brisk, body, 2048)]);
      await until(() => slow.closedByServer, 'the slow upload to be cut', 10_000);
      expect(slow.answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(slowSent).toBeLessThan(body.length);

      expect(briskSent).toBe(body.length);
      await until(() => brisk.answer.includes('\r\n\r\n'), 'the brisk upload to be answered', 10_000);
      expect(brisk.answer.split('\r\n')[0]).toBe('HTTP/1.1 201 Created');
      brisk.socket.destroy();
      const said = server.events.filter((event) => /--min-upload-rate/.test(event.message));
      expect(said.map((event) => event.message)).toEqual([expect.stringMatching(/127\.0\.0\.1/)]);
      // The route whose body read failed with it logs nothing more: a line per cut would fill the log.
      expect(server.events.filter((event) => event.level === 'error')).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
