import type { Queryable } from '../Database.ts';

/**
 * The ledger's day closings (migration 044): each wallet's balance at the end of each UTC day it moved, read by a
 * statement's opening balance (StatementRepository) and written only by `closeDays` (and, for an entry written with a
 * past created_at, by the ledger's trigger).
 */
export const LedgerClosingRepository = {
  /**
   * Closes the final days not yet closed, at most `maxDays` of them, in the caller's transaction; returns how many
   * it closed (0: none is final yet, or the ledger is empty). A day is final once it ended ten minutes ago and
   * before the oldest open transaction of the database began (ledger_close_days).
   */
  async closeDays(q: Queryable, maxDays: number): Promise<number> {
    const { rows } = await q.query<{ closed: number }>('SELECT ledger_close_days($1) AS closed', [maxDays]);
    return Number(rows[0]?.closed ?? 0);
  },
};
