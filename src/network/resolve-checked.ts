/**
 * The one place a host is resolved under a network policy, for the egress proxy and for
 * pdfrender's own requests alike: resolve once, check every address, and name the one to dial,
 * so what is dialled is what was checked.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { addressRefusal, hostDecision, normalizeHost, type NetworkPolicy } from './policy.js';
import { networkRefusal, type Refusal } from './refusal.js';

/** Resolves a host name to its addresses (injectable, so tests can give a DNS answer). */
export type Resolver = (host: string) => Promise<string[]>;

/** The system resolver: every address of the host, as the OS would hand them to a dialler. */
export const systemResolver: Resolver = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * The address to dial for `host`, or why the policy refuses it. An IP literal is not resolved.
 * A name that must be checked and does not resolve is refused like a private one, so that callers
 * cannot tell the two apart; a name allowed outright that does not resolve rejects (a failure).
 */
export async function resolveChecked(
  policy: NetworkPolicy,
  host: string,
  resolver: Resolver = systemResolver,
): Promise<{ address: string } | { refused: Refusal }> {
  const name = normalizeHost(host);
  const decision = hostDecision(policy, name);
  if (decision.verdict === 'refuse') return { refused: decision.refusal };
  let addresses: string[];
  try {
    addresses = isIP(name) ? [name] : await resolver(name);
    if (addresses.length === 0) throw new Error(`no addresses for ${name}`);
  } catch (error) {
    if (decision.verdict === 'allow') throw error;
    return {
      refused: networkRefusal(
        'NETWORK_POLICY',
        `cannot resolve ${name}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      ),
    };
  }
  if (decision.verdict === 'check') {
    const refused = addresses.map((address) => addressRefusal(name, address)).find((found) => found !== null);
    if (refused) return { refused };
  }
  return { address: addresses[0]! };
}
