import type { PayoutStatus, WebhookEventType } from '@payrail/protocol';
import { newId } from '../domain/ids.ts';
import type { Payout } from '../domain/Payout.ts';
import { toPayoutWire } from '../domain/Payout.ts';
import { DEFAULT_STATUS_MESSAGE, payoutEventType, RETURN_TRANSITION } from '../domain/payoutStateMachine.ts';
import type { Queryable } from '../store/Database.ts';
import { isCheckViolation, isOutOfRange, isUniqueViolation } from '../store/dbErrors.ts';
import { JobRepository } from '../store/repositories/JobRepository.ts';
import { BalanceOverflow, DuplicateEntry, InsufficientFunds } from '../store/repositories/LedgerRepository.ts';
import { toPayout, type PayoutRow } from '../store/repositories/PayoutRepository.ts';
import { batchItemFinal } from './BatchCompletion.ts';
import { LockPlan } from './LockOrder.ts';

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

/** What moveMany needs of the lifecycle: when a payout's next step is due, and the transition counter. */
export interface BulkMoveContext {
  nextStepDelayMs(payout: Payout): number | null;
  counted(to: PayoutStatus, n: number): void;
  now(): number;
}

/**
 * `PayoutLifecycle.move` for many payouts, in a few statements whatever their number (bank files): one
 * UPDATE … FROM unnest(…) for the moves (the database's triggers still check each row's transition and write its
 * history, per row), one UPDATE of the allowances, one INSERT of the webhook events (in the order of `moves`: a
 * payout is in at most one move per call, so its own events keep their order across calls), one INSERT of the next
 * steps per delay. Every payout must still be in the status it moves from: otherwise nothing is kept (throws; the
 * caller's transaction rolls back). Returns the moved payouts in the order of `moves`.
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
  const { rows } = await tx.query<PayoutRow>(
    `UPDATE payouts AS p
        SET status = u.to_status, status_message = u.message, utr = coalesce(u.utr, p.utr),
            rail_reference = coalesce(u.rail_reference, p.rail_reference), updated_at = now(), rail_error = NULL,
            rail_retry_since = NULL,
            failure_reason = CASE WHEN u.to_status = 'FAILED' THEN u.message ELSE p.failure_reason END,
            return_reason = coalesce(u.return_reason, p.return_reason)
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
              AS u (id, from_status, to_status, message, utr, rail_reference, return_reason),
            (SELECT set_config('payrail.actor', $8, true)) AS actor
      WHERE p.id = u.id AND p.status = u.from_status
      RETURNING p.*`,
    [
      ids,
      moves.map((m) => m.payout.status),
      moves.map((m) => m.to),
      moves.map((m) => m.message ?? DEFAULT_STATUS_MESSAGE[m.to]),
      moves.map((m) => m.utr ?? null),
      moves.map((m) => m.railReference ?? null),
      moves.map((m) => m.returnReason ?? null),
      actor,
    ],
  );
  if (rows.length !== moves.length) {
    throw new Error(`moveMany: ${moves.length - rows.length} of ${moves.length} payouts had left their status`);
  }
  const byId = new Map(rows.map((r) => [r.id, toPayout(r)]));
  const moved = moves.map((m) => byId.get(m.payout.id) as Payout);
  // The wallets, allowances and batch rows below are written in the order of `moves`: locked first in the one
  // order (services/LockOrder.ts), so that two such steps, or one and an initiation, never wait for each other
  // in a cycle. Rows the caller has locked already (PayoutStepper, FilePlan) are taken again at no wait.
  const plan = new LockPlan();
  moves.forEach((m, i) => plan.move({ ...(moved[i] as Payout), status: m.payout.status }, m.to));
  await plan.take(tx);

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
    release(p.merchantId, `D${p.istDay}`, p.amount);
    release(p.merchantId, `M${p.istMonth}`, p.amount);
  });
  if (released.size > 0) {
    const r = [...released.values()];
    await tx.query(
      `UPDATE merchant_usage AS m SET amount = greatest(m.amount - u.amount, 0)
         FROM unnest($1::text[], $2::text[], $3::int8[]) AS u (merchant_id, period, amount)
        WHERE m.merchant_id = u.merchant_id AND m.period = u.period`,
      [r.map((x) => x.merchantId), r.map((x) => x.period), r.map((x) => String(x.amount))],
    );
  }

  const events: { payout: Payout; type: WebhookEventType; url: string }[] = [];
  moved.forEach((p, i) => {
    const type = payoutEventType((moves[i] as BulkMove).to);
    if (type && p.callbackUrl) events.push({ payout: p, type, url: p.callbackUrl });
  });
  await insertWebhookEvents(tx, events, ctx.now());

  const byDelay = new Map<number, string[]>();
  for (const p of moved) {
    const delay = ctx.nextStepDelayMs(p);
    if (delay === null) continue;
    const group = byDelay.get(delay);
    if (group) group.push(p.id);
    else byDelay.set(delay, [p.id]);
  }
  for (const [delay, subjects] of byDelay) await JobRepository.scheduleMany(tx, 'payout.advance', subjects, delay);

  // After the payouts' own events, so that a receiver sees the last payout.* event before the batch's.
  for (const [i, p] of moved.entries()) {
    const m = moves[i] as BulkMove;
    const returned = m.payout.status === RETURN_TRANSITION.from && m.to === RETURN_TRANSITION.to;
    if (p.batchId && (m.to === 'SUCCESS' || (m.to === 'REFUNDED' && !returned))) {
      await batchItemFinal(tx, p.merchantId, p.batchId, new Date(ctx.now()));
    }
  }
  const counts = new Map<PayoutStatus, number>();
  for (const m of moves) counts.set(m.to, (counts.get(m.to) ?? 0) + 1);
  for (const [to, n] of counts) ctx.counted(to, n);
  return moved;
}

/** The webhook outbox rows of `enqueueWebhook`, in one statement, in the order given (their seq). */
async function insertWebhookEvents(
  tx: Queryable,
  events: readonly { payout: Payout; type: WebhookEventType; url: string }[],
  now: number,
): Promise<void> {
  if (events.length === 0) return;
  await tx.query(
    `INSERT INTO webhook_deliveries (id, merchant_id, subject_id, type, url, scheme, snapshot, next_attempt_at,
       created_at)
     SELECT u.id, u.merchant_id, u.subject_id, u.type, u.url, u.scheme, u.snapshot, $8, $8
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
              WITH ORDINALITY AS u (id, merchant_id, subject_id, type, url, scheme, snapshot, ord)
      ORDER BY u.ord`,
    [
      events.map(() => newId('event', now)),
      events.map((e) => e.payout.merchantId),
      events.map((e) => e.payout.id),
      events.map((e) => e.type),
      events.map((e) => e.url),
      events.map((e) => e.payout.scheme),
      events.map((e) => JSON.stringify(toPayoutWire(e.payout))),
      new Date(now),
    ],
  );
}

/** `recordRailError` for many payouts: the error on each payout and in its history, two statements. */
export async function recordRailErrors(
  tx: Queryable,
  errors: readonly { payoutId: string; error: string }[],
  actor: string,
): Promise<void> {
  if (errors.length === 0) return;
  const ids = errors.map((e) => e.payoutId);
  const texts = errors.map((e) => e.error);
  await tx.query(
    `UPDATE payouts AS p SET rail_error = u.error, rail_retry_since = NULL
       FROM unnest($1::text[], $2::text[]) AS u (id, error) WHERE p.id = u.id`,
    [ids, texts],
  );
  await tx.query(
    `INSERT INTO transaction_events (subject_id, type, reason, actor)
     SELECT u.id, 'error', u.error, $3 FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u (id, error, ord)
      ORDER BY u.ord`,
    [ids, texts, actor],
  );
}

/**
 * The `payout_refund` entries of returns (PayoutLifecycle.returnPayout), in one statement: the ledger's trigger
 * still moves each wallet per row, and its unique index still allows one refund per payout. The wallets, and the
 * allowances the returns free next (moveMany), are locked first in the one order (services/LockOrder.ts): the
 * trigger alone would take the wallets in the order of `payouts`.
 */
export async function appendRefunds(tx: Queryable, payouts: readonly Payout[]): Promise<void> {
  if (payouts.length === 0) return;
  const plan = new LockPlan();
  for (const p of payouts) plan.move({ ...p, status: RETURN_TRANSITION.from }, RETURN_TRANSITION.to);
  await plan.take(tx);
  try {
    await tx.query(
      `INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, payout_id)
       SELECT u.wallet_id, 'payout_refund', u.amount, 0, u.payout_id
         FROM unnest($1::text[], $2::int8[], $3::text[]) WITH ORDINALITY AS u (wallet_id, amount, payout_id, ord)
        ORDER BY u.ord`,
      [payouts.map((p) => p.walletId), payouts.map((p) => String(p.amount)), payouts.map((p) => p.id)],
    );
  } catch (err) {
    if (isCheckViolation(err, 'wallets_balance_check')) throw new InsufficientFunds();
    if (isUniqueViolation(err)) throw new DuplicateEntry();
    if (isOutOfRange(err)) throw new BalanceOverflow();
    throw err;
  }
}

/** Payouts locked FOR UPDATE in one statement, in id order (the order every bank-file step locks in). */
export async function lockPayouts(tx: Queryable, ids: readonly string[]): Promise<Map<string, Payout>> {
  if (ids.length === 0) return new Map();
  const { rows } = await tx.query<PayoutRow>(
    'SELECT * FROM payouts WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE',
    [[...new Set(ids)]],
  );
  return new Map(rows.map((r) => [r.id, toPayout(r)]));
}

/** The status of each payout of a cut file, locked FOR UPDATE in one statement, in id order. */
export async function lockFileStatuses(tx: Queryable, msgId: string): Promise<Pick<Payout, 'id' | 'status'>[]> {
  const { rows } = await tx.query<{ id: string; status: PayoutStatus }>(
    `SELECT p.id, p.status FROM payouts p
      WHERE p.id IN (SELECT i.payout_id FROM bank_file_items i WHERE i.msg_id = $1)
      ORDER BY p.id FOR UPDATE OF p`,
    [msgId],
  );
  return rows;
}
