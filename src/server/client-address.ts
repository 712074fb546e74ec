/**
 * The client's address, as `--trust-proxy` says to read it. Like Express's `trust proxy`: the
 * chain is the socket's peer followed by the X-Forwarded-For entries from the right (each proxy
 * appends the address it saw), and it is walked from the server outwards only through hops we
 * trust. The leftmost entries are whatever the client wrote, so they are never taken unless every
 * hop before them is trusted.
 */
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { booleanWord } from '../fields.js';

/** Trusted proxies: a number of hops (0: none, the socket's peer is the client) or addresses and CIDR ranges. */
export type TrustProxy = number | Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>;

const loopbackRanges = ['127.0.0.0/8', '::1/128'];

/**
 * The --trust-proxy setting: bare flag or "true" (or on, yes) one hop, "false" (or off, no) none, a
 * number of hops, or a comma list of proxy addresses and CIDR ranges ("loopback" for 127.0.0.0/8 and ::1).
 */
export const trustProxyField = z
  .union([z.boolean(), z.string(), z.number()], {
    error: 'must be true, false, a number of hops or a list of addresses',
  })
  .transform((value, ctx): TrustProxy => {
    if (typeof value === 'boolean') return value ? 1 : 0;
    const text = String(value).trim().toLowerCase();
    if (/^\d+$/.test(text)) return Number(text);
    // The words every boolean setting takes (on, yes, ...): one hop, or none.
    const word = booleanWord(text);
    if (word !== undefined) return word ? 1 : 0;
    const ranges: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]> = [];
    for (const entry of text
      .split(',')
      .flatMap((item) => (item.trim() === 'loopback' ? loopbackRanges : [item.trim()]))) {
      const range = parseRange(entry);
      if (!range) {
        ctx.addIssue({
          code: 'custom',
          message: `"${entry}" is not a number of hops, an IP address, a CIDR range or "loopback"`,
          input: value,
        });
        return z.NEVER;
      }
      ranges.push(range);
    }
    return ranges;
  })
  .prefault(false);

function parseRange(entry: string): [ipaddr.IPv4 | ipaddr.IPv6, number] | null {
  if (entry.includes('/')) {
    try {
      const [address, bits] = ipaddr.parseCIDR(entry);
      return [unmapped(address), address.kind() === 'ipv6' && unmapped(address).kind() === 'ipv4' ? bits - 96 : bits];
    } catch {
      return null;
    }
  }
  const address = normalizeAddress(entry);
  return address ? [ipaddr.parse(address), address.includes(':') ? 128 : 32] : null;
}

function unmapped(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()
    ? (address as ipaddr.IPv6).toIPv4Address()
    : address;
}

/**
 * One spelling per address: ports and brackets stripped ("[::1]:80", "1.2.3.4:5"), IPv4-mapped
 * IPv6 as IPv4, IPv6 compressed in lower case; null when it is not an IP address.
 */
export function normalizeAddress(text: string): string | null {
  let address = text.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed) address = bracketed[1]!;
  else if (/^[\d.]+:\d+$/.test(address)) address = address.slice(0, address.indexOf(':'));
  // ipaddr.js would take "1" or "0x7f.1" as IPv4; only the dotted-quad and IPv6 forms proxies write count.
  if (!ipaddr.IPv4.isValidFourPartDecimal(address) && !(address.includes(':') && ipaddr.IPv6.isValid(address)))
    return null;
  return unmapped(ipaddr.parse(address)).toString();
}

/** The range ipaddr.js names for an address in any spelling normalizeAddress takes ('loopback', 'unspecified', ...); null when it is not one. */
export function addressRange(text: string): string | null {
  const normalized = normalizeAddress(text);
  return normalized === null ? null : ipaddr.parse(normalized).range();
}

/** Whether a --host value reaches this machine only: localhost, or a loopback address in any spelling. */
export function isLoopbackHost(host: string): boolean {
  return host.trim().toLowerCase() === 'localhost' || addressRange(host) === 'loopback';
}

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

function isTrusted(address: string, ranges: Exclude<TrustProxy, number>): boolean {
  const parsed = ipaddr.parse(address);
  return ranges.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits));
}
