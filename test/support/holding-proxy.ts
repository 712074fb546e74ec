/**
 * A TCP proxy of the test's own between pdfrender and PostgreSQL, on loopback, that can go silent as
 * a network partition does: no reset, no close, the bytes just stop. Armed with a marker (text of a
 * statement, such as the enqueue function's name), it acts on the first chunk from pdfrender that
 * carries it: `after` lets that chunk reach the database and then holds everything on that
 * connection (the answer never comes back), `before` holds the chunk itself (the statement never
 * arrives). With `everything`, every connection, open or new, is held from then on, as when the
 * instance is cut off whole. `heal()` resets the held connections (as a partition that outlived the
 * kernel's patience does) and forwards again.
 */
import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface HoldPlan {
  /** Text the chunk must carry. */
  marker: string;
  /** Let the marked chunk through and hold after it (its answer is lost), or hold it (it never arrives). */
  when: 'after' | 'before';
  /** Hold every connection from then on, not only the marked one. */
  everything?: boolean;
}

/** A proxy to 127.0.0.1:`targetPort`; `port` is where pdfrender connects instead. */
export async function holdingProxy(targetPort: number) {
  let plan: HoldPlan | undefined;
  let holdingAll = false;
  /** Marked chunks acted on so far. */
  let held = 0;
  const pairs = new Set<{ client: Socket; server: Socket; holding: boolean }>();

  const proxy = createServer((client) => {
    const server = connect(targetPort, '127.0.0.1');
    const pair = { client, server, holding: holdingAll };
    pairs.add(pair);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      server.destroy();
    };
    // A held connection's end does not cross the partition either: the database's session stays
    // open, idle, as it would behind a real one, until heal() or the database ends it.
    client.on('error', () => pair.holding || drop()).on('close', () => pair.holding || drop());
    server.on('error', drop).on('close', drop);
    client.on('data', (chunk: Buffer) => {
      if (pair.holding) return;
      if (plan && chunk.includes(plan.marker)) {
        const acting = plan;
        plan = undefined;
        held += 1;
        if (acting.when === 'after') server.write(chunk);
        pair.holding = true;
        if (acting.everything) {
          holdingAll = true;
          for (const other of pairs) other.holding = true;
        }
        return;
      }
      server.write(chunk);
    });
    server.on('data', (chunk: Buffer) => {
      if (!pair.holding) client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));

  return {
    port: (proxy.address() as AddressInfo).port,
    /** Act on the next chunk carrying `plan.marker`. */
    arm(next: HoldPlan) {
      plan = next;
    },
    /** Hold every connection, open or new, now (a database frozen, or cut off). */
    holdAll() {
      holdingAll = true;
      for (const pair of pairs) pair.holding = true;
    },
    /** Connections held whose database side is still open (a session the database has not ended). */
    get holdingOpen() {
      return [...pairs].filter((pair) => pair.holding && !pair.server.destroyed).length;
    },
    /** How many marked chunks were acted on. */
    get held() {
      return held;
    },
    /** Reset every held connection and forward again. */
    heal() {
      holdingAll = false;
      for (const pair of [...pairs]) {
        if (!pair.holding) continue;
        if (!pair.client.destroyed) pair.client.resetAndDestroy();
        pair.server.destroy();
        pairs.delete(pair);
      }
    },
    close() {
      for (const pair of [...pairs]) {
        pair.client.destroy();
        pair.server.destroy();
      }
      proxy.close();
    },
  };
}
