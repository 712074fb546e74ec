/**
 * --max-connections-per-address: one client cannot take every connection slot (issue 27 §2, where
 * 1,000 trickling uploads from one address left none for /healthz). A connection past its
 * address's cap is closed as it is accepted, before a byte is read, as Node closes one past
 * --max-connections: it costs nothing, and an answer (503) written before the request is read
 * would often be lost anyway, since closing a socket with the client's request unread sends a reset.
 * A normal client never meets the cap (a browser opens 6 connections per server), so the one that
 * does is already holding many.
 *
 * A proxy --trust-proxy trusts is not counted: behind it every client arrives from its address.
 */
import type { Server, Socket } from 'node:net';
import ipaddr from 'ipaddr.js';
import { normalizeAddress } from '../../network/address-spelling.js';
import type { TrustProxy } from '../../network/trust-proxy.js';
import { trustsPeer } from './client-address.js';

/**
 * What one client's connections are counted by: its IPv4 address, or its IPv6 /64, the block one
 * subscriber (a home, a phone) is given, which would otherwise give it 2^64 caps.
 */
export function connectionKey(peer: string): string {
  const address = normalizeAddress(peer) ?? peer;
  if (!address.includes(':') || !ipaddr.IPv6.isValid(address)) return address;
  const parts = ipaddr.IPv6.parse(address).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/64`;
}

/** Close each connection to `server` that would give its address more than `max` open; `refused` hears of each. */
export function capConnectionsPerAddress(
  server: Pick<Server, 'on'>,
  options: { max: number; trustProxy: TrustProxy; refused: (key: string, open: number) => void },
): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const peer = socket.remoteAddress;
    // No peer: the socket closed before it was handed over.
    if (peer === undefined || trustsPeer(peer, options.trustProxy)) return;
    const key = connectionKey(peer);
    const count = open.get(key) ?? 0;
    if (count >= options.max) {
      socket.destroy();
      options.refused(key, count);
      return;
    }
    open.set(key, count + 1);
    socket.once('close', () => {
      const left = open.get(key)! - 1;
      if (left === 0) open.delete(key);
      else open.set(key, left);
    });
  });
}
