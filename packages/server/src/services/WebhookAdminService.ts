import type { Database } from '../store/Database.ts';
import {
  WebhookRepository,
  type DeliveryPageQuery,
  type WebhookAttempt,
  type WebhookDelivery,
} from '../store/repositories/WebhookRepository.ts';

/** Webhook deliveries as operators and merchants see them: lists with attempts, replay of one or many. */
export class WebhookAdminService {
  constructor(private readonly db: Database) {}

  async page(
    query: DeliveryPageQuery,
  ): Promise<{ deliveries: WebhookDelivery[]; attempts: Map<string, WebhookAttempt[]> }> {
    const deliveries = await WebhookRepository.page(this.db, query);
    const attempts = await WebhookRepository.attempts(
      this.db,
      deliveries.map((d) => d.id),
    );
    return { deliveries, attempts };
  }

  /** Replays one delivery; with `merchantId`, only one of that merchant's (another's answers false, as unknown). */
  async replay(id: string, merchantId?: string): Promise<boolean> {
    if (merchantId !== undefined) {
      const delivery = await WebhookRepository.findById(this.db, id);
      if (!delivery || delivery.merchantId !== merchantId) return false;
    }
    return WebhookRepository.requeue(this.db, id);
  }

  /** Every failed delivery of the merchant created at or after `since`, queued again; their ids. */
  replayFailed(merchantId: string, since: Date): Promise<string[]> {
    return WebhookRepository.requeueFailed(this.db, merchantId, since);
  }
}
