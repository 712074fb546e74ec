/**
 * Why a URL was refused, in two parts: a code and a reason that any caller may see, which depend
 * only on the URL and the server's settings (never on what a name resolves to, or whether it
 * exists: that would make the report a DNS oracle into the server's network), and the detail
 * (the address, the DNS error) for the operator's log only.
 */

/** NETWORK_POLICY: the host is not public or cannot be resolved; NETWORK_BLOCKED: --block-network; FILE_NOT_ALLOWED, SCHEME_NOT_ALLOWED: by the URL alone. */
export type RefusalCode = 'NETWORK_POLICY' | 'NETWORK_BLOCKED' | 'FILE_NOT_ALLOWED' | 'SCHEME_NOT_ALLOWED';

export interface Refusal {
  code: RefusalCode;
  /** Safe for any caller. */
  reason: string;
  /** For the operator's log only: the resolved address, the DNS error. */
  detail?: string;
}

// The same reason whether a name resolves to a private address or does not exist at all.
const fixedReasons: Partial<Record<RefusalCode, string>> = {
  NETWORK_POLICY: 'blocked by the network policy (public addresses only)',
  NETWORK_BLOCKED: 'network access is blocked (--block-network)',
};

/** A refusal with `code`; `reason` is only taken for codes whose reason is not fixed (it must be safe). */
export function refusal(code: RefusalCode, detail?: string, reason?: string): Refusal {
  const safe = fixedReasons[code] ?? reason ?? code;
  return detail === undefined || detail === safe ? { code, reason: safe } : { code, reason: safe, detail };
}

/** True when `value` is a refusal code (as the egress proxy's refusal header carries it). */
export function isRefusalCode(value: string): value is RefusalCode {
  return value === 'NETWORK_POLICY' || value === 'NETWORK_BLOCKED' || value === 'FILE_NOT_ALLOWED' || value === 'SCHEME_NOT_ALLOWED';
}
