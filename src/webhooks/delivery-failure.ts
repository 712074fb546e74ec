/**
 * What a webhook URL that could not be used tells its owner, and what it tells the operator. The
 * owner reads it back (POST /api/webhooks's refusal, a delivery's last error), so it says neither
 * what the host resolved to nor the resolver's or the socket's error text, which name addresses and
 * tell an existing internal name from a missing one; the detail goes to the operator's log.
 */
import { RefusedUrlError } from '../network/pinned-request.js';

/** The caller's reason for a host that does not resolve: one phrase, whatever the resolver said. */
export const unresolvedHostReason = "the URL's host could not be resolved";

// Socket errors a receiver's owner may be told by name: they say what the receiver did, not where it is.
const socketReasons: Record<string, string> = {
  ENOTFOUND: unresolvedHostReason,
  EAI_AGAIN: unresolvedHostReason,
  ECONNREFUSED: 'the receiver refused the connection',
  ECONNRESET: 'the receiver closed the connection',
  EPIPE: 'the receiver closed the connection',
  ETIMEDOUT: 'the connection timed out',
};

/** The reason a delivery attempt failed without an answer, safe for the endpoint's owner. */
export function deliveryFailureReason(error: unknown): string {
  if (error instanceof RefusedUrlError) return `refused by the network policy: ${error.refusal.reason}`;
  const message = error instanceof Error ? error.message : '';
  // pinned-request's own words about the answer's size name no address.
  if (/^the response is larger than /.test(message)) return message;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return (typeof code === 'string' && socketReasons[code]) || 'the request failed';
}

/** The operator's account of the same failure: the resolved address, the DNS or socket error. */
export function failureDetail(error: unknown): string {
  if (error instanceof RefusedUrlError) return error.refusal.detail ?? error.refusal.reason;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}
