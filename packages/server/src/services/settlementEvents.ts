import { settlementEventType, toSettlementWire, type Settlement } from '../domain/settlement.ts';
import type { Payout } from '../domain/Payout.ts';
import type { Queryable } from '../store/Database.ts';
import { DepositRepository } from '../store/repositories/DepositRepository.ts';
import { SettlementRepository } from '../store/repositories/SettlementRepository.ts';
import { enqueueWebhook } from './WebhookOutbox.ts';

/**
 * settlement.<state> events (docs/merchant/settlements.md), to the merchant's collection callback: the money came from
 * its collections. The object is the settlement as it is now, without its collections list.
 */
export async function enqueueSettlementEvents(
  tx: Queryable,
  settlements: readonly Settlement[],
  now: Date,
): Promise<void> {
  for (const s of settlements) {
    const target = await DepositRepository.merchantWebhook(tx, s.merchantId);
    await enqueueWebhook(
      tx,
      {
        merchantId: s.merchantId,
        subjectId: s.id,
        type: settlementEventType(s.state),
        url: target?.url ?? null,
        scheme: target?.scheme ?? 'v2',
        object: toSettlementWire(s),
      },
      now,
    );
  }
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
