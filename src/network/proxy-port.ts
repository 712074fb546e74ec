/**
 * The egress proxy's port, bound before the proxy exists: the CLI starts Chromium before pdfrender
 * has loaded (early-start.ts), and Chromium must be given the proxy's address as it starts. A
 * connection made before the proxy takes the port waits, paused, until it does: nothing but the
 * proxy ever serves one.
 */
import { createServer, type Server, type Socket } from 'node:net';

/** The flags that send all of Chromium's traffic through the egress proxy at `url`. */
export function egressProxyFlags(url: string): string[] {
  return [
    `--proxy-server=${url}`,
    // Loopback included: Chromium otherwise bypasses a proxy for it.
    '--proxy-bypass-list=<-loopback>',
    // WebRTC's UDP (STUN, ICE) does not go through an HTTP proxy; without this a document could
    // send UDP to any address and read local addresses from its ICE candidates. The full browser
    // reads the first switch, the headless shell only the second (both measured).
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  ];
}

interface Reserved {
  server: Server;
  url: string;
  waiting: Set<Socket>;
  hold: (socket: Socket) => void;
}

/** The reservation, held by the process (like the early browser, see browser-process.ts): the early start and the CLI may be separate copies of this module. */
const handoff = ((globalThis as Record<symbol, unknown>)[Symbol.for('pdfrender.proxyPort')] ??= {}) as {
  reserved?: Reserved;
};

/** Bind a loopback port for the egress proxy to come; resolves to its URL, for Chromium's --proxy-server. */
export async function reserveProxyPort(): Promise<string> {
  const server = createServer({ pauseOnConnect: true });
  const waiting = new Set<Socket>();
  const hold = (socket: Socket) => {
    waiting.add(socket);
    socket.once('close', () => waiting.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  server.on('connection', hold);
  await new Promise<void>((ready, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => ready());
  });
  // Until the proxy takes it, the port alone does not keep the process alive.
  server.unref();
  const { port } = server.address() as { port: number };
  handoff.reserved = { server, url: `http://127.0.0.1:${port}`, waiting, hold };
  return handoff.reserved.url;
}

/**
 * The reserved port, taken once (undefined when there is none): from now on `serve` gets each of its
 * connections, those waiting first. The caller closes the returned server.
 */
export function takeReservedPort(serve: (socket: Socket) => void): { server: Server; url: string } | undefined {
  const taken = handoff.reserved;
  handoff.reserved = undefined;
  if (!taken) return undefined;
  taken.server.off('connection', taken.hold);
  taken.server.on('connection', serve);
  taken.server.ref();
  for (const socket of taken.waiting) serve(socket);
  taken.waiting.clear();
  return { server: taken.server, url: taken.url };
}
