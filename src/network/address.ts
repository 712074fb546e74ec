/**
 * Which IP addresses a rendered document (or a webhook) may reach by default: public unicast only.
 * ipaddr.js knows the special ranges (loopback, RFC 1918, link-local, CGNAT, multicast, ULA, ...);
 * we add the IPv6 forms that carry an IPv4 address inside them, which must be judged by that address.
 */
import ipaddr from 'ipaddr.js';

/** Why `address` is not public ("loopback", "private", "linkLocal", ...), or null when it is public unicast. */
export function nonPublicReason(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return 'not an IP address';
  }
  if (parsed.kind() === 'ipv6') {
    const embedded = embeddedIPv4(parsed as ipaddr.IPv6);
    if (embedded) {
      const reason = nonPublicReason(embedded);
      return reason === null ? null : `${reason} (${(parsed as ipaddr.IPv6).range()} form of ${embedded})`;
    }
  }
  const range = parsed.range();
  return range === 'unicast' ? null : range;
}

// IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d, deprecated but still routed where a
// sit0 tunnel exists), NAT64 (64:ff9b::a.b.c.d) and 6to4 (2002:aabb:ccdd::) addresses reach the
// IPv4 address inside them. Other transition forms (Teredo, local-use NAT64) stay non-public
// through their own range.
function embeddedIPv4(address: ipaddr.IPv6): string | null {
  const parts = address.parts;
  const ipv4 = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  if (address.isIPv4MappedAddress()) return address.toIPv4Address().toString();
  if (parts[0] === 0x64 && parts[1] === 0xff9b && parts.slice(2, 6).every((part) => part === 0))
    return ipv4(parts[6]!, parts[7]!);
  if (parts[0] === 0x2002) return ipv4(parts[1]!, parts[2]!);
  // ::/96, but not :: and ::1, which are IPv6's own unspecified and loopback addresses.
  if (parts.slice(0, 6).every((part) => part === 0) && (parts[6] !== 0 || parts[7]! > 1))
    return ipv4(parts[6]!, parts[7]!);
  return null;
}
