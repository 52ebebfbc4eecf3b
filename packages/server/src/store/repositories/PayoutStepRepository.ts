import type { Payout } from '../../domain/Payout.ts';
import type { Queryable } from '../Database.ts';
import { toPayout, type PayoutRow } from './PayoutRepository.ts';

/**
 * The set-based reads and writes of the worker's payout steps (jobs/PayoutStepper.ts): what PayoutRepository does
 * for one payout, for a claimed batch in one statement.
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
   */
  async claimSubmissions(q: Queryable, ids: readonly string[]): Promise<Map<string, Payout>> {
    if (ids.length === 0) return new Map();
    const { rows } = await q.query<PayoutRow>(
      `UPDATE payouts SET submitted_at = coalesce(submitted_at, now()), submit_attempts = submit_attempts + 1
        WHERE id = ANY($1::text[]) AND status = 'INITIATED' AND (rail_error IS NULL OR rail_retry_since IS NOT NULL)
        RETURNING *`,
      [[...new Set(ids)]],
    );
    return new Map(rows.map((r) => [r.id, toPayout(r)]));
  },
};
