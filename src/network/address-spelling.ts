/**
 * IP addresses as people and proxies write them: one spelling per address (ports and brackets
 * stripped, IPv4-mapped IPv6 as IPv4), the range ipaddr.js names for it, and whether a --host value
 * reaches this machine only.
 */
import ipaddr from 'ipaddr.js';

/** An address in its own family: an IPv4-mapped IPv6 address as the IPv4 address inside it. */
export function unmapped(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
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
