import type { Database } from '../store/Database.ts';
import {
  WebhookRepository,
  type DeliveryPageQuery,
  type WebhookAttempt,
  type WebhookDelivery,
} from '../store/repositories/WebhookRepository.ts';
import { inScope, scopedQuery, type MerchantScope } from './MerchantScope.ts';

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

/**
 * The operator's view of webhook deliveries: pages of deliveries with their attempts, and replay. With a
 * MerchantScope (the merchant console), only that merchant's deliveries.
 */
export class WebhookAdminService {
  constructor(private readonly db: Database) {}

  async page(query: DeliveryPageQuery, scope?: MerchantScope): Promise<DeliveryWithAttempts[]> {
    const rows = await WebhookRepository.page(this.db, scopedQuery(query, scope));
    const attempts = await WebhookRepository.attempts(
      this.db,
      rows.map((d) => d.id),
    );
    return rows.map((delivery) => ({ delivery, attempts: attempts.get(delivery.id) ?? [] }));
  }

  /** Sends a delivery again now; false when there is no such delivery (or it is outside `scope`). */
  async replay(id: string, scope?: MerchantScope): Promise<boolean> {
    if (scope !== undefined) {
      const delivery = await WebhookRepository.findById(this.db, id);
      if (!delivery || !inScope(scope, delivery.merchantId)) return false;
    }
    return WebhookRepository.requeue(this.db, id);
  }

  /** Every failed delivery of the merchant created at or after `since`, queued again; their ids. */
  replayFailed(merchantId: string, since: Date): Promise<string[]> {
    return WebhookRepository.requeueFailed(this.db, merchantId, since);
  }
}
