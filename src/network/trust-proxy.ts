/**
 * The --trust-proxy setting: which proxies in front of the server are trusted to say who the client
 * is (server/edge/client-address.ts walks X-Forwarded-For through them).
 */
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { booleanWord } from '../fields.js';
import { normalizeAddress, unmapped } from './address-spelling.js';

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
