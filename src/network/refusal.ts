/**
 * Why a URL was refused, in two parts: a code and a reason that any caller may see, which depend
 * only on the URL and the server's settings (never on what a name resolves to, or whether it
 * exists: that would make the report a DNS oracle into the server's network), and the detail
 * (the address, the DNS error) for the operator's log only.
 */

/** NETWORK_POLICY: the host is not public or cannot be resolved; NETWORK_BLOCKED: --block-network; FILE_NOT_ALLOWED, SCHEME_NOT_ALLOWED: by the URL alone. */
export const refusalCodes = ['NETWORK_POLICY', 'NETWORK_BLOCKED', 'FILE_NOT_ALLOWED', 'SCHEME_NOT_ALLOWED'] as const;
export type RefusalCode = (typeof refusalCodes)[number];

export interface Refusal {
  code: RefusalCode;
  /** Safe for any caller. */
  reason: string;
  /** For the operator's log only: the resolved address, the DNS error. */
  detail?: string;
}

const networkReasons = {
  // The same reason whether a name resolves to a private address or does not exist at all.
  NETWORK_POLICY: 'blocked by the network policy (public addresses only)',
  NETWORK_BLOCKED: 'network access is blocked (--block-network)',
};

/** A refusal by the network policy: a fixed reason for the caller, `detail` (the address, the DNS error) for the log. */
export function networkRefusal(code: keyof typeof networkReasons, detail?: string): Refusal {
  return detail === undefined ? { code, reason: networkReasons[code] } : { code, reason: networkReasons[code], detail };
}

/** A refusal decided by the URL alone (its scheme, its file path), whose `reason` is therefore safe as it is. */
export function urlRefusal(code: 'FILE_NOT_ALLOWED' | 'SCHEME_NOT_ALLOWED', reason: string): Refusal {
  return { code, reason };
}
