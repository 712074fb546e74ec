/** A loopback gate: documents that load from it wait until the test opens it. */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { until } from './wait.js';

/**
 * Holds every request until open() is called; afterwards answers at once (204). `reached(n)` waits
 * until `n` requests have arrived, so a test knows a render is in flight without guessing a time.
 */
export async function startGate() {
  const held: ServerResponse[] = [];
  let opened = false;
  let hits = 0;
  const answer = (res: ServerResponse) => res.writeHead(204).end();
  const server = createServer((_req, res) => {
    hits += 1;
    if (opened) answer(res);
    else held.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/wait`;
  return {
    url,
    /** A document that renders only once the gate opens, padded with about `padding` bytes. */
    document: (padding = 0) => `<img src="${url}"><p>gated</p><!--${'x'.repeat(padding)}-->`,
    reached: (count: number) => until(() => hits >= count, `${count} request(s) at the gate`),
    open() {
      opened = true;
      held.splice(0).forEach(answer);
    },
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}
