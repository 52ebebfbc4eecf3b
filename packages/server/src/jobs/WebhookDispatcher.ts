import { encryptJson, signWebhook, type WebhookEventWire } from '@payrail/protocol';
import type { Logger } from 'pino';
import type { Metrics } from '../observability/Metrics.ts';
import type { CallbackPolicy } from '../services/CallbackPolicy.ts';
import type { Database } from '../store/Database.ts';
import { MerchantRepository } from '../store/repositories/MerchantRepository.ts';
import {
  WebhookRepository,
  type WebhookAttempt,
  type WebhookDelivery,
} from '../store/repositories/WebhookRepository.ts';

export interface DispatcherOptions {
  retryScheduleMs: number[];
  timeoutMs: number;
}

const USER_AGENT = 'Payrail-Webhooks/1.0';

/**
 * Sends one claimed delivery per Standard Webhooks and records the attempt: 2xx within the timeout is
 * delivered; anything else is retried on the schedule until it runs out, then the delivery is failed.
 * `data` is encrypted at send time with the merchant's current keys and the transaction's scheme.
 */
export class WebhookDispatcher {
  constructor(
    private readonly db: Database,
    private readonly policy: CallbackPolicy,
    private readonly metrics: Metrics,
    private readonly logger: Logger,
    private readonly options: DispatcherOptions,
  ) {}

  async deliver(delivery: WebhookDelivery): Promise<void> {
    const started = Date.now();
    const attempt: WebhookAttempt = { attemptedAt: new Date(started), durationMs: 0, httpStatus: null, error: null };
    try {
      attempt.httpStatus = await this.send(delivery);
      if (attempt.httpStatus < 200 || attempt.httpStatus > 299) attempt.error = `HTTP ${attempt.httpStatus}`;
    } catch (err) {
      attempt.error = describe(err, this.options.timeoutMs);
    }
    attempt.durationMs = Date.now() - started;
    const ok = attempt.error === null;
    const attemptsSoFar = delivery.attempts + 1;
    const retryInMs = ok ? null : (this.options.retryScheduleMs[attemptsSoFar - 1] ?? null);
    const state = ok ? 'delivered' : retryInMs === null ? 'failed' : 'pending';
    await WebhookRepository.recordAttempt(this.db, delivery.id, attempt, { state, retryInMs });
    this.metrics.webhookAttempts.inc({ outcome: ok ? 'delivered' : state === 'failed' ? 'gave_up' : 'retry' });
    this.logger.info(
      { delivery: delivery.id, type: delivery.type, attempt: attemptsSoFar, status: attempt.httpStatus, state },
      ok ? 'webhook delivered' : 'webhook attempt failed',
    );
  }

  private async send(delivery: WebhookDelivery): Promise<number> {
    const merchant = await MerchantRepository.findById(this.db, delivery.merchantId);
    if (!merchant) throw new Error('merchant no longer exists');
    const problem = await this.policy.check(delivery.url);
    if (problem) throw new Error(`callback URL refused by policy: ${problem}`);
    const event: WebhookEventWire = {
      id: delivery.id,
      type: delivery.type,
      created_at: delivery.createdAt.toISOString(),
      data: encryptJson(JSON.parse(delivery.snapshot), delivery.scheme, merchant),
    };
    const body = JSON.stringify(event);
    const headers = signWebhook(merchant.webhookSecret, delivery.id, new Date(), body);
    const res = await fetch(delivery.url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'user-agent': USER_AGENT },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(this.options.timeoutMs),
    });
    // Drain so the connection can be reused; the receiver's body is not kept.
    await res.arrayBuffer().catch(() => undefined);
    return res.status;
  }
}

function describe(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  const cause = e.cause?.code ?? e.cause?.message;
  return (cause ? `${e.message}: ${cause}` : (e.message ?? String(err))).slice(0, 500);
}
