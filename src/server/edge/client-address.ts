/**
 * The client's address, as `--trust-proxy` says to read it. Like Express's `trust proxy`: the
 * chain is the socket's peer followed by the X-Forwarded-For entries from the right (each proxy
 * appends the address it saw), and it is walked from the server outwards only through hops we
 * trust. The leftmost entries are whatever the client wrote, so they are never taken unless every
 * hop before them is trusted.
 *
 * Not proxy-addr (jshttp, what Express uses), though this is its walk: it reads a Node
 * IncomingMessage (the routes have Hono's request and the socket's peer, and the tests'
 * app.request() has no socket at all), and it brings ipaddr.js 1.x beside the 2.x every other
 * address check here uses, so an IPv4-mapped or bracketed address would be spelt two ways.
 */
import ipaddr from 'ipaddr.js';
import { normalizeAddress } from '../../network/address-spelling.js';
import type { TrustProxy } from '../../network/trust-proxy.js';

/** The client's address: the socket's peer, or the X-Forwarded-For entry the last trusted proxy wrote. */
export function clientAddress(
  socketPeer: string | undefined,
  forwardedFor: string | undefined,
  trust: TrustProxy,
): string | undefined {
  const peer = socketPeer === undefined ? undefined : (normalizeAddress(socketPeer) ?? socketPeer);
  if (peer === undefined || trust === 0 || (Array.isArray(trust) && trust.length === 0) || !forwardedFor) return peer;
  // Nearest first: the socket's peer, then X-Forwarded-For from the right.
  const chain = [peer, ...forwardedFor.split(',').reverse().map(normalizeAddress)];
  let index = 0;
  // A hop is passed only to a well-formed address: garbage from the far side stops the walk at the last good one.
  while (chain[index + 1] && (typeof trust === 'number' ? index < trust : isTrusted(chain[index]!, trust))) index += 1;
  return chain[index]!;
}

/** Whether --trust-proxy trusts the socket's peer as a proxy: every peer with a number of hops, else one in its ranges. */
export function trustsPeer(socketPeer: string, trust: TrustProxy): boolean {
  if (typeof trust === 'number') return trust > 0;
  const peer = normalizeAddress(socketPeer);
  return peer !== null && isTrusted(peer, trust);
}

function isTrusted(address: string, ranges: Exclude<TrustProxy, number>): boolean {
  const parsed = ipaddr.parse(address);
  return ranges.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits));
}
