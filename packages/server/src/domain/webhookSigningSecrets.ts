import type { Merchant } from './Merchant.ts';

/** How long the secret replaced by a webhook-secret rotation keeps signing deliveries. */
export const WEBHOOK_SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** The secrets a delivery sent at `now` is signed with: the current one first, then the previous while valid. */
export function webhookSigningSecrets(
  merchant: Pick<Merchant, 'webhookSecret' | 'previousWebhookSecret' | 'previousWebhookSecretExpiresAt'>,
  now: Date,
): string[] {
  const { previousWebhookSecret: previous, previousWebhookSecretExpiresAt: expiresAt } = merchant;
  const stillValid = previous !== null && expiresAt !== null && expiresAt.getTime() > now.getTime();
  return stillValid && previous !== merchant.webhookSecret
    ? [merchant.webhookSecret, previous]
    : [merchant.webhookSecret];
}
