import type { Scheme, WebhookEventType } from '@payrail/protocol';
import { newId } from '../domain/ids.ts';
import type { Queryable } from '../store/Database.ts';
import { WebhookRepository } from '../store/repositories/WebhookRepository.ts';

export interface WebhookEvent {
  merchantId: string;
  subjectId: string;
  type: WebhookEventType;
  /** Where it goes; no URL, no event. */
  url: string | null;
  scheme: Scheme;
  /** The transaction object (plaintext) as it is now. */
  object: unknown;
}

/**
 * Records an event in the transaction of the state change that caused it; the dispatcher sends it later. `now` is
 * the composition root's clock, read by the caller.
 */
export async function enqueueWebhook(tx: Queryable, event: WebhookEvent, now: Date): Promise<void> {
  if (!event.url) return;
  await WebhookRepository.insert(tx, {
    id: newId('event', now.getTime()),
    merchantId: event.merchantId,
    subjectId: event.subjectId,
    type: event.type,
    url: event.url,
    scheme: event.scheme,
    snapshot: JSON.stringify(event.object),
    createdAt: now,
  });
}
