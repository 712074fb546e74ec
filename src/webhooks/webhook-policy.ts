/**
 * Where webhooks may go: http(s) URLs whose host resolves to public addresses only, unless
 * --allow-private-webhooks lets them reach this machine and private networks (a receiver on a
 * developer box). Checked when an endpoint is added, and again, with the pinned address, on every
 * delivery attempt, since a name may resolve elsewhere by then.
 */
import type { Resolver } from '../network/resolve-checked.js';
import { checkUrl, RefusedUrlError } from '../network/pinned-request.js';
import type { NetworkPolicy } from '../network/policy.js';
import { PdfRenderError } from '../errors.js';
import { validateWebhookUrl } from '../store/webhook-endpoint-rules.js';
import { failureDetail, unresolvedHostReason } from './delivery-failure.js';

/** The network policy for webhook deliveries. */
export function webhookPolicy(allowPrivate: boolean): NetworkPolicy {
  return { network: allowPrivate ? 'all' : 'public', allowHosts: [] };
}

/**
 * Validate a webhook URL for adding: scheme, then where it resolves; returns it normalised. A
 * refusal says only the policy's reason (the same for a private address and a name that does not
 * exist, so the answer is no oracle for the server's DNS); what the name resolved to, or the
 * resolver's error, is the error's `detail`, for the operator's log.
 */
export async function checkWebhookUrl(url: string, allowPrivate: boolean, resolver?: Resolver): Promise<string> {
  const normalised = validateWebhookUrl(url);
  try {
    await checkUrl(new URL(normalised), webhookPolicy(allowPrivate), resolver);
  } catch (error) {
    const refused = error instanceof RefusedUrlError;
    const reason = refused
      ? `${error.refusal.reason}; a receiver on this machine or a private network needs --allow-private-webhooks`
      : unresolvedHostReason;
    const detail = failureDetail(error);
    throw new PdfRenderError('VALIDATION_FAILED', `webhook URL ${normalised} is refused: ${reason}`, {
      fieldErrors: { url: [reason] },
      detail: `webhook URL ${normalised}: ${detail}`,
    });
  }
  return normalised;
}
