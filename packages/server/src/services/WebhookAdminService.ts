import type { Database } from '../store/Database.ts';
import {
  WebhookRepository,
  type DeliveryPageQuery,
  type WebhookAttempt,
  type WebhookDelivery,
} from '../store/repositories/WebhookRepository.ts';

export type {
  DeliveryPageQuery,
  DeliveryState,
  WebhookAttempt,
  WebhookDelivery,
} from '../store/repositories/WebhookRepository.ts';

export interface DeliveryWithAttempts {
  delivery: WebhookDelivery;
  attempts: WebhookAttempt[];
}

/** The operator's view of webhook deliveries: pages of deliveries with their attempts, and replay. */
export class WebhookAdminService {
  constructor(private readonly db: Database) {}

  async page(query: DeliveryPageQuery): Promise<DeliveryWithAttempts[]> {
    const rows = await WebhookRepository.page(this.db, query);
    const attempts = await WebhookRepository.attempts(
      this.db,
      rows.map((d) => d.id),
    );
    return rows.map((delivery) => ({ delivery, attempts: attempts.get(delivery.id) ?? [] }));
  }

  /**
   * Sends a delivery again now; false when there is no such delivery. With `merchantId`, only one of that
   * merchant's (another merchant's answers false, as unknown): the merchant console.
   */
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
