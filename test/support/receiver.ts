/** A real webhook receiver on loopback, for tests that need to see what pdfrender sends. */
import { EventEmitter } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Arrival {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A receiver on an ephemeral port that keeps each request's headers and body; `answer` responds to
 * the n-th request (default 200; doing nothing leaves it hanging).
 */
export async function receiver(
  answer: (res: ServerResponse, index: number) => void = (res) => res.writeHead(200).end(),
) {
  const received: Arrival[] = [];
  const arrived = new EventEmitter();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      answer(res, received.length - 1);
      arrived.emit('arrival');
    });
  });
  let connections = 0;
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    /** Fires 'arrival' after each request was kept in `received`. */
    arrived,
    /** TCP connections opened to it so far. */
    get connections() {
      return connections;
    },
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof receiver>>;

/** Wait until `hook` has received `count` requests (or `timeoutMs` passed); answers what it received. */
export async function waitForArrivals(hook: Receiver, count: number, timeoutMs: number): Promise<Arrival[]> {
  if (hook.received.length < count) {
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        hook.arrived.off('arrival', check);
        resolve();
      };
      const check = () => hook.received.length >= count && done();
      const timer = setTimeout(done, timeoutMs);
      hook.arrived.on('arrival', check);
    });
  }
  return hook.received;
}
