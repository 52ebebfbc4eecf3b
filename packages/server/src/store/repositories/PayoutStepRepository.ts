import type { PayoutStatus } from '@payrail/protocol';
import type { Payout } from '../../domain/Payout.ts';
import type { Queryable } from '../Database.ts';
import { toPayout, type PayoutRow } from './PayoutRepository.ts';

/** One payout's move in `transitionMany`: PayoutRepository.transition's arguments, per payout. */
export interface PayoutTransition {
  id: string;
  from: PayoutStatus;
  to: PayoutStatus;
  statusMessage: string;
  utr: string | null;
  railReference: string | null;
  returnReason: string | null;
}

/**
 * The set-based reads and writes of payouts: what PayoutRepository does for one payout, for many in one statement
 * (the worker's payout steps, jobs/PayoutStepper.ts; bank files and the lifecycle's moveMany,
 * services/PayoutBulkMoves.ts).
 */
export const PayoutStepRepository = {
  /** The payouts with these ids, by id (no lock: the step locks them when it records its answers). */
  async findMany(q: Queryable, ids: readonly string[]): Promise<Map<string, Payout>> {
    if (ids.length === 0) return new Map();
    const { rows } = await q.query<PayoutRow>('SELECT * FROM payouts WHERE id = ANY($1::text[])', [[...new Set(ids)]]);
    return new Map(rows.map((r) => [r.id, toPayout(r)]));
  },

  /**
   * `PayoutRepository.claimSubmission` for several payouts in one statement (committed before any connector is
   * called): the payouts claimed, by id. A payout no longer INITIATED, or carrying a rail error other than a
   * temporary refusal, is not claimed.
   *
   * "Still INITIATED" is written as none of the statuses after it (the table's CHECK lists all six), so that only the
   * primary key can find the rows: `status = 'INITIATED'` let the planner answer from payouts_by_status or the
   * partial payouts_open_by_wallet, which statistics taken between bursts (nearly every payout final) price at
   * about one row, and the claim then read every INITIATED payout of the backlog (and each dead entry left since
   * the last vacuum) to find its few (issue 35: 12 → 22 ms a claim during a drain at 300,000 payouts, 59 ms
   * after three drains). test/store/flatAtScale.test.ts holds the plan.
   */
  async claimSubmissions(q: Queryable, ids: readonly string[]): Promise<Map<string, Payout>> {
    if (ids.length === 0) return new Map();
    const { rows } = await q.query<PayoutRow>(
      `UPDATE payouts SET submitted_at = coalesce(submitted_at, now()), submit_attempts = submit_attempts + 1
        WHERE id = ANY($1::text[]) AND status NOT IN ('PROCESSING', 'PENDING', 'SUCCESS', 'FAILED', 'REFUNDED')
          AND (rail_error IS NULL OR rail_retry_since IS NOT NULL)
        RETURNING *`,
      [[...new Set(ids)]],
    );
    return new Map(rows.map((r) => [r.id, toPayout(r)]));
  },

  /** Payouts locked FOR UPDATE in one statement, in id order (the order every set-based step locks in), by id. */
  async lockMany(q: Queryable, ids: readonly string[]): Promise<Map<string, Payout>> {
    if (ids.length === 0) return new Map();
    const { rows } = await q.query<PayoutRow>(
      'SELECT * FROM payouts WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE',
      [[...new Set(ids)]],
    );
    return new Map(rows.map((r) => [r.id, toPayout(r)]));
  },

  /**
   * `PayoutRepository.transition` for many payouts in one UPDATE … FROM unnest(…): the database's triggers still
   * check each row's transition and write its history, per row, with `actor`. A payout no longer in its `from` is
   * not moved: the moved ones are returned, in no particular order.
   */
  async transitionMany(q: Queryable, moves: readonly PayoutTransition[], actor: string): Promise<Payout[]> {
    if (moves.length === 0) return [];
    const { rows } = await q.query<PayoutRow>(
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
        moves.map((m) => m.id),
        moves.map((m) => m.from),
        moves.map((m) => m.to),
        moves.map((m) => m.statusMessage),
        moves.map((m) => m.utr),
        moves.map((m) => m.railReference),
        moves.map((m) => m.returnReason),
        actor,
      ],
    );
    return rows.map(toPayout);
  },

  /** `PayoutRepository.recordRailError` for many payouts, in one statement. */
  async recordRailErrors(q: Queryable, errors: readonly { payoutId: string; error: string }[]): Promise<void> {
    if (errors.length === 0) return;
    await q.query(
      `UPDATE payouts AS p SET rail_error = u.error, rail_retry_since = NULL
         FROM unnest($1::text[], $2::text[]) AS u (id, error) WHERE p.id = u.id`,
      [errors.map((e) => e.payoutId), errors.map((e) => e.error)],
    );
  },
};
