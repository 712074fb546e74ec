/** A loopback gate: documents that load from it wait until the test opens it. */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { until } from './wait.js';

export interface GateOptions {
  /**
   * While held, answer headers at once and then a byte this often, ms. A server's documents load
   * through its egress proxy, which drops an upstream silent for 15 s (its timeout): without this,
   * a hold longer than that ends with a failed image and the render goes on.
   */
  trickleMs?: number;
}

/**
 * Holds every request until open() is called; afterwards answers at once (204). `reached(n)` waits
 * until `n` requests have arrived, so a test knows a render is in flight without guessing a time.
 */
export async function startGate(options: GateOptions = {}) {
  const held: Array<{ res: ServerResponse; trickle?: NodeJS.Timeout }> = [];
  let opened = false;
  let hits = 0;
  const answer = (res: ServerResponse) => (res.headersSent ? res.end() : res.writeHead(204).end());
  const server = createServer((_req, res) => {
    hits += 1;
    if (opened) return answer(res);
    const hold: (typeof held)[number] = { res };
    if (options.trickleMs) {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      hold.trickle = setInterval(() => res.write(' '), options.trickleMs);
      res.on('close', () => clearInterval(hold.trickle));
    }
    held.push(hold);
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
      for (const { res, trickle } of held.splice(0)) {
        clearInterval(trickle);
        answer(res);
      }
    },
    close() {
      for (const { trickle } of held) clearInterval(trickle);
      server.closeAllConnections();
      server.close();
    },
  };
}
