/**
 * The one place a host is resolved under a network policy, for the egress proxy and for
 * pdfrender's own requests alike: resolve once, check every address, and name the one to dial,
 * so what is dialled is what was checked.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { addressRefusal, hostDecision, normalizeHost, type NetworkPolicy } from './policy.js';

/** Resolves a host name to its addresses (injectable, so tests can give a DNS answer). */
export type Resolver = (host: string) => Promise<string[]>;

/** The system resolver: every address of the host, as the OS would hand them to a dialler. */
export const systemResolver: Resolver = async (host) => (await dnsLookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * The address to dial for `host`, or why the policy refuses it. An IP literal is not resolved.
 * Rejects when the name cannot be resolved, which is a failure, not a refusal.
 */
export async function resolveChecked(policy: NetworkPolicy, host: string, resolver: Resolver = systemResolver): Promise<{ address: string } | { refused: string }> {
  const name = normalizeHost(host);
  const decision = hostDecision(policy, name);
  if (decision.verdict === 'refuse') return { refused: decision.reason };
  const addresses = isIP(name) ? [name] : await resolver(name);
  if (addresses.length === 0) throw new Error(`no addresses for ${name}`);
  if (decision.verdict === 'check') {
    const refused = addresses.map((address) => addressRefusal(name, address)).find((reason) => reason !== null);
    if (refused) return { refused };
  }
  return { address: addresses[0]! };
}
