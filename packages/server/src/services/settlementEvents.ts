import { newId } from '../domain/ids.ts';
import type { Payout } from '../domain/Payout.ts';
import { settlementEventType, toSettlementWire, type Settlement } from '../domain/settlement.ts';
import type { Queryable } from '../store/Database.ts';
import { MerchantRepository } from '../store/repositories/MerchantRepository.ts';
import { SettlementRepository } from '../store/repositories/SettlementRepository.ts';
import { WebhookRepository } from '../store/repositories/WebhookRepository.ts';

/**
 * settlement.<state> events (docs/merchant/settlements.md), to the merchant's collection callback: the money came from
 * its collections. The object is the settlement as it is now, without its collections list. Two statements whatever
 * their number (a daily run opens one settlement per merchant): the merchants' callbacks, then the outbox rows of
 * `enqueueWebhook`, in the order given. No callback URL, no event.
 */
export async function enqueueSettlementEvents(
  tx: Queryable,
  settlements: readonly Settlement[],
  now: Date,
): Promise<void> {
  if (settlements.length === 0) return;
  const targets = await MerchantRepository.collectionWebhooks(tx, [...new Set(settlements.map((s) => s.merchantId))]);
  const events = settlements.flatMap((s) => {
    const target = targets.get(s.merchantId);
    if (!target?.url) return [];
    return [
      {
        id: newId('event', now.getTime()),
        merchantId: s.merchantId,
        subjectId: s.id,
        type: settlementEventType(s.state),
        url: target.url,
        scheme: target.scheme,
        snapshot: JSON.stringify(toSettlementWire(s)),
      },
    ];
  });
  await WebhookRepository.insertMany(tx, events, now);
}

/**
 * After payouts moved (PayoutLifecycle.move and moveMany): the settlements among them have moved with them (the
 * trigger of migration 034) and tell their merchants. A settlement's payout sends no payout.* event of its own (it
 * has no callback URL): the merchant follows the settlement.
 */
export async function settlementPayoutsMoved(tx: Queryable, payouts: readonly Payout[], now: Date): Promise<void> {
  const ids = payouts.filter((p) => p.settlementId).map((p) => p.id);
  if (ids.length === 0) return;
  await enqueueSettlementEvents(tx, await SettlementRepository.findByPayouts(tx, ids), now);
}
