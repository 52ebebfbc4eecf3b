import type { RotatedWebhookSecret } from '../../services/MerchantService.ts';

/** A rotated webhook secret as the operator's and the merchant console's rotation answer it (shown once). */
export const webhookSecretView = (rotated: RotatedWebhookSecret) => ({
  merchant_id: rotated.merchantId,
  webhook_secret: rotated.webhookSecret,
  previous_secret_expires_at: rotated.previousSecretExpiresAt.toISOString(),
});
