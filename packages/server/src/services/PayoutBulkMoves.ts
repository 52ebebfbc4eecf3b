import type { PayoutStatus } from '@payrail/protocol';
import { newId } from '../domain/ids.ts';
import type { Payout } from '../domain/Payout.ts';
import { allowanceHolder, toPayoutWire } from '../domain/Payout.ts';
import { DEFAULT_STATUS_MESSAGE, payoutEventType, RETURN_TRANSITION } from '../domain/payoutStateMachine.ts';
import type { Clock } from '../clock.ts';
import type { Queryable } from '../store/Database.ts';
import { LedgerRepository } from '../store/repositories/LedgerRepository.ts';
import { PayoutStepRepository } from '../store/repositories/PayoutStepRepository.ts';
import { TransactionEventRepository } from '../store/repositories/TransactionEventRepository.ts';
import { UsageRepository } from '../store/repositories/UsageRepository.ts';
import { WebhookRepository, type NewDelivery } from '../store/repositories/WebhookRepository.ts';
import { batchItemFinal } from './BatchCompletion.ts';
import { settlementPayoutsMoved } from './settlementEvents.ts';

/** One payout's move in a set-based step (PayoutLifecycle.moveMany): `move`'s options, per payout. */
export interface BulkMove {
  /** Locked by the caller, in the status it moves from. */
  payout: Pick<Payout, 'id' | 'status'>;
  to: PayoutStatus;
  message?: string;
  utr?: string;
  railReference?: string;
  /** SUCCESS → REFUNDED only: why the bank sent the money back (its refund entry must be appended first). */
  returnReason?: string;
}

/** What moveMany needs of the lifecycle: the moved payouts' next steps, the transition counter, its clock. */
export interface BulkMoveContext {
  scheduleNextMany(tx: Queryable, payouts: readonly Payout[]): Promise<void>;
  counted(to: PayoutStatus, n: number): void;
  clock: Clock;
}

/**
 * `PayoutLifecycle.move` for many payouts, in a few statements whatever their number (bank files): one
 * UPDATE … FROM unnest(…) for the moves (the database's triggers still check each row's transition and write its
 * history, per row), one UPDATE of the allowances, one INSERT of the webhook events (in the order of `moves`: a
 * payout is in at most one move per call, so its own events keep their order across calls), one INSERT of the next
 * steps per delay (PayoutLifecycle.scheduleNextMany). Every payout must still be in the status it moves from:
 * otherwise nothing is kept (throws; the caller's transaction rolls back). Returns the moved payouts in the order of
 * `moves`. The caller has locked the wallets, allowances and batch rows the moves write, in the one order, before
 * its first write (a LockPlan of every move of its transaction: PayoutStepper.apply, FilePlan.execute; the cut-off's
 * moves to PROCESSING write none): written here in the order of `moves`, they would otherwise deadlock.
 */
export async function moveMany(
  tx: Queryable,
  moves: readonly BulkMove[],
  actor: string,
  ctx: BulkMoveContext,
): Promise<Payout[]> {
  if (moves.length === 0) return [];
  const ids = moves.map((m) => m.payout.id);
  if (new Set(ids).size !== ids.length) throw new Error('moveMany: a payout moves at most once per call');
  const rows = await PayoutStepRepository.transitionMany(
    tx,
    moves.map((m) => ({
      id: m.payout.id,
      from: m.payout.status,
      to: m.to,
      statusMessage: m.message ?? DEFAULT_STATUS_MESSAGE[m.to],
      utr: m.utr ?? null,
      railReference: m.railReference ?? null,
      returnReason: m.returnReason ?? null,
    })),
    actor,
  );
  if (rows.length !== moves.length) {
    throw new Error(`moveMany: ${moves.length - rows.length} of ${moves.length} payouts had left their status`);
  }
  const byId = new Map(rows.map((p) => [p.id, p]));
  const moved = moves.map((m) => byId.get(m.payout.id) as Payout);
  // The allowances count the payouts that are not FAILED or REFUNDED (PayoutLifecycle.move): summed per period,
  // which greatest(…, 0) leaves equal to releasing them one by one.
  const released = new Map<string, { merchantId: string; period: string; amount: bigint }>();
  const release = (merchantId: string, period: string, amount: bigint) => {
    const key = `${merchantId}\n${period}`;
    const r = released.get(key) ?? { merchantId, period, amount: 0n };
    r.amount += amount;
    released.set(key, r);
  };
  moves.forEach((m, i) => {
    const returned = m.payout.status === RETURN_TRANSITION.from && m.to === RETURN_TRANSITION.to;
    if (m.to !== 'FAILED' && !returned) return;
    const p = moved[i] as Payout;
    const holder = allowanceHolder(p);
    if (holder === null) return;
    release(holder, `D${p.istDay}`, p.amount);
    release(holder, `M${p.istMonth}`, p.amount);
  });
  await UsageRepository.releaseMany(tx, [...released.values()]);

  const now = ctx.clock();
  const events: Omit<NewDelivery, 'createdAt'>[] = [];
  moved.forEach((p, i) => {
    const type = payoutEventType((moves[i] as BulkMove).to);
    if (!type || !p.callbackUrl || p.merchantId === null) return;
    // The outbox rows of `enqueueWebhook`, in one statement, in the order of `moves` (their seq).
    events.push({
      id: newId('event', now),
      merchantId: p.merchantId,
      subjectId: p.id,
      type,
      url: p.callbackUrl,
      scheme: p.scheme,
      snapshot: JSON.stringify(toPayoutWire(p)),
    });
  });
  await WebhookRepository.insertMany(tx, events, new Date(now));

  await ctx.scheduleNextMany(tx, moved);
  await settlementPayoutsMoved(tx, moved, new Date(now));

  // After the payouts' own events, so that a receiver sees the last payout.* event before the batch's.
  for (const [i, p] of moved.entries()) {
    const m = moves[i] as BulkMove;
    const returned = m.payout.status === RETURN_TRANSITION.from && m.to === RETURN_TRANSITION.to;
    if (p.batchId && p.merchantId !== null && (m.to === 'SUCCESS' || (m.to === 'REFUNDED' && !returned))) {
      await batchItemFinal(tx, p.merchantId, p.batchId, new Date(now));
    }
  }
  const counts = new Map<PayoutStatus, number>();
  for (const m of moves) counts.set(m.to, (counts.get(m.to) ?? 0) + 1);
  for (const [to, n] of counts) ctx.counted(to, n);
  return moved;
}

/** `recordRailError` for many payouts: the error on each payout and in its history, two statements. */
export async function recordRailErrors(
  tx: Queryable,
  errors: readonly { payoutId: string; error: string }[],
  actor: string,
): Promise<void> {
  if (errors.length === 0) return;
  await PayoutStepRepository.recordRailErrors(tx, errors);
  await TransactionEventRepository.recordErrors(
    tx,
    errors.map((e) => ({ subjectId: e.payoutId, reason: e.error })),
    actor,
  );
}

/**
 * The `payout_refund` entries of returns (PayoutLifecycle.returnPayout), in one statement: the ledger's trigger
 * still moves each wallet per row, and its unique index still allows one refund per payout. As for moveMany, the
 * caller has locked the wallets first (FilePlan.execute's LockPlan): the trigger alone takes them in the order of
 * `payouts`.
 */
export async function appendRefunds(tx: Queryable, payouts: readonly Payout[]): Promise<void> {
  if (payouts.length === 0) return;
  await LedgerRepository.appendRefunds(
    tx,
    payouts.map((p) => ({ walletId: p.walletId, amount: p.amount, payoutId: p.id })),
  );
}
