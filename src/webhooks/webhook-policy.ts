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

/** The network policy for webhook deliveries. */
export function webhookPolicy(allowPrivate: boolean): NetworkPolicy {
  return { network: allowPrivate ? 'all' : 'public', allowHosts: [] };
}

/** Validate a webhook URL for adding: scheme, then where it resolves; returns it normalised. */
export async function checkWebhookUrl(url: string, allowPrivate: boolean, resolver?: Resolver): Promise<string> {
  const normalised = validateWebhookUrl(url);
  try {
    await checkUrl(new URL(normalised), webhookPolicy(allowPrivate), resolver);
  } catch (error) {
    const reason =
      error instanceof RefusedUrlError
        ? `${error.message}; a receiver on this machine or a private network needs --allow-private-webhooks`
        : `cannot resolve its host: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
    throw new PdfRenderError('VALIDATION_FAILED', `webhook URL ${normalised} is refused: ${reason}`, {
      fieldErrors: { url: [reason] },
    });
  }
  return normalised;
}
