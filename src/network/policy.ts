/**
 * The network policy of rendered documents: which hosts and addresses they may reach. The server's
 * default is public addresses only; the CLI's is everything (it renders the user's own files).
 */
import { isIP } from 'node:net';
import { nonPublicReason } from './address.js';
import { networkRefusal, type Refusal } from './refusal.js';

export interface NetworkPolicy {
  /** 'public': public addresses only; 'all': private ones too (--allow-private-network); 'none': nothing (--block-network). */
  network: 'public' | 'all' | 'none';
  /** Host names always allowed, whatever they resolve to: "intranet.local" or "*.example.com" (--allow-host); default none. */
  allowHosts?: readonly string[];
}

/** The server's default: public http(s) only. */
export const publicOnly: NetworkPolicy = Object.freeze({ network: 'public', allowHosts: Object.freeze([]) });

/** Hosts and IP literals as URLs spell them: lower case, no brackets, no trailing dot. */
export function normalizeHost(host: string): string {
  return host
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
}

/** True when `host` matches one of `patterns` (exact, or "*.example.com" for its subdomains and itself). */
export function hostAllowed(host: string, patterns: readonly string[]): boolean {
  const name = normalizeHost(host);
  return patterns.some((raw) => {
    const pattern = normalizeHost(raw.trim());
    if (pattern.startsWith('*.')) return name === pattern.slice(2) || name.endsWith(pattern.slice(1));
    return name === pattern;
  });
}

/**
 * What to do about a host before it is resolved: 'allow' it outright, 'refuse' it, or 'check' each
 * address it resolves to with `addressRefusal` (and refuse it alike when it does not resolve).
 */
export function hostDecision(
  policy: NetworkPolicy,
  host: string,
): { verdict: 'allow' } | { verdict: 'check' } | { verdict: 'refuse'; refusal: Refusal } {
  if (hostAllowed(host, policy.allowHosts ?? [])) return { verdict: 'allow' };
  if (policy.network === 'none') return { verdict: 'refuse', refusal: networkRefusal('NETWORK_BLOCKED') };
  if (policy.network === 'all') return { verdict: 'allow' };
  const name = normalizeHost(host);
  if (name === 'localhost' || name.endsWith('.localhost'))
    return { verdict: 'refuse', refusal: networkRefusal('NETWORK_POLICY', `${name} is this machine`) };
  if (isIP(name)) {
    const reason = nonPublicReason(name);
    return reason
      ? { verdict: 'refuse', refusal: networkRefusal('NETWORK_POLICY', `${name} is not a public address (${reason})`) }
      : { verdict: 'allow' };
  }
  return { verdict: 'check' };
}

/** Why a resolved address of `host` may not be dialled under a 'check' verdict, or null. */
export function addressRefusal(host: string, address: string): Refusal | null {
  const reason = nonPublicReason(address);
  return reason
    ? networkRefusal(
        'NETWORK_POLICY',
        `${normalizeHost(host)} resolves to ${address}, which is not a public address (${reason})`,
      )
    : null;
}
