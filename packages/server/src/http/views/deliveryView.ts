import type { WebhookAttempt, WebhookDelivery } from '../../services/WebhookAdminService.ts';

/** A webhook delivery with every attempt (the operator and the merchant console). */
export function deliveryView(d: WebhookDelivery, attempts: WebhookAttempt[]) {
  return {
    id: d.id,
    merchant_id: d.merchantId,
    subject_id: d.subjectId,
    type: d.type,
    url: d.url,
    state: d.state,
    attempt_count: d.attempts,
    next_attempt_at: d.state === 'pending' ? d.nextAttemptAt.toISOString() : null,
    last_status: d.lastStatus,
    last_error: d.lastError,
    created_at: d.createdAt.toISOString(),
    delivered_at: d.deliveredAt?.toISOString() ?? null,
    attempts: attempts.map((a) => ({
      attempted_at: a.attemptedAt.toISOString(),
      duration_ms: a.durationMs,
      http_status: a.httpStatus,
      error: a.error,
    })),
  };
}
