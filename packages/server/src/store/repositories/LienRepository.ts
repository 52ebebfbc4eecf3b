import type { Queryable } from '../Database.ts';
import { isCheckViolation } from '../dbErrors.ts';

/** What a lien is as stored (migration 033); `expired` is read against the caller's clock, never stored. */
export type LienState = 'pending' | 'active' | 'released' | 'enforced' | 'expired' | 'rejected';

export interface Lien {
  id: string;
  walletId: string;
  /** Paise, as placed. */
  amount: bigint;
  /** Paise the lien holds now (0 once released, enforced or expired). */
  remaining: bigint;
  released: bigint;
  enforced: bigint;
  reason: string;
  state: LienState;
  expiresAt: Date | null;
  placedBy: string;
  approvedBy: string | null;
  enforcePending: bigint | null;
  enforceRequestedBy: string | null;
  enforceReason: string | null;
  /** The latest release's reason and who made it (migration 036); null until a release. */
  releaseReason: string | null;
  releasedBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

interface LienRow {
  id: string;
  wallet_id: string;
  amount: bigint;
  remaining: bigint;
  released: bigint;
  enforced: bigint;
  reason: string;
  state: LienState;
  expires_at: Date | null;
  placed_by: string;
  approved_by: string | null;
  enforce_pending: bigint | null;
  enforce_requested_by: string | null;
  enforce_reason: string | null;
  release_reason: string | null;
  released_by: string | null;
  created_at: Date;
  updated_at: Date;
}

const toLien = (r: LienRow, at: Date): Lien => {
  const expired = r.state === 'active' && r.expires_at !== null && r.expires_at.getTime() <= at.getTime();
  return {
    id: r.id,
    walletId: r.wallet_id,
    amount: r.amount,
    remaining: expired ? 0n : r.remaining,
    released: r.released,
    enforced: r.enforced,
    reason: r.reason,
    state: expired ? 'expired' : r.state,
    expiresAt: r.expires_at,
    placedBy: r.placed_by,
    approvedBy: r.approved_by,
    enforcePending: expired ? null : r.enforce_pending,
    enforceRequestedBy: expired ? null : r.enforce_requested_by,
    enforceReason: expired ? null : r.enforce_reason,
    releaseReason: r.release_reason,
    releasedBy: r.released_by,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
};

export class LienOverdraw extends Error {
  constructor() {
    super('the wallet cannot pay what the lien enforces');
    this.name = 'LienOverdraw';
  }
}

/** Liens (docs/operator/liens.md). Every write is made by its caller under the wallet's row lock. */
export const LienRepository = {
  async insert(
    q: Queryable,
    l: {
      id: string;
      walletId: string;
      amount: bigint;
      reason: string;
      state: 'pending' | 'active';
      expiresAt: Date | null;
      placedBy: string;
      at: Date;
    },
  ): Promise<Lien> {
    const { rows } = await q.query<LienRow>(
      `INSERT INTO liens (id, wallet_id, amount, remaining, reason, state, expires_at, placed_by, approved_by,
         created_at, updated_at)
       VALUES ($1, $2, $3, $3, $4, $5, $6, $7, CASE WHEN $5 = 'active' THEN $7 END, $8, $8) RETURNING *`,
      [l.id, l.walletId, l.amount, l.reason, l.state, l.expiresAt, l.placedBy, l.at],
    );
    return toLien(rows[0] as LienRow, l.at);
  },

  async findById(q: Queryable, id: string, at: Date): Promise<Lien | null> {
    const { rows } = await q.query<LienRow>('SELECT * FROM liens WHERE id = $1', [id]);
    return rows[0] ? toLien(rows[0], at) : null;
  },

  /** The lien, its row held until the transaction ends (taken after its wallet's lock). */
  async lockById(q: Queryable, id: string, at: Date): Promise<Lien | null> {
    const { rows } = await q.query<LienRow>('SELECT * FROM liens WHERE id = $1 FOR UPDATE', [id]);
    return rows[0] ? toLien(rows[0], at) : null;
  },

  /** The wallet's liens, newest first. */
  async listByWallet(q: Queryable, walletId: string, at: Date): Promise<Lien[]> {
    const { rows } = await q.query<LienRow>('SELECT * FROM liens WHERE wallet_id = $1 ORDER BY id DESC', [walletId]);
    return rows.map((r) => toLien(r, at));
  },

  /** What the wallet's liens hold at `at` (function wallet_on_lien, migration 033). */
  async onLien(q: Queryable, walletId: string, at: Date): Promise<bigint> {
    const { rows } = await q.query<{ total: bigint }>('SELECT wallet_on_lien($1, $2) AS total', [walletId, at]);
    return rows[0]?.total ?? 0n;
  },

  /** A pending lien approved (it holds from now on) or rejected. */
  async decidePlacement(
    q: Queryable,
    id: string,
    state: 'active' | 'rejected',
    checker: string,
    at: Date,
  ): Promise<Lien> {
    const { rows } = await q.query<LienRow>(
      `UPDATE liens SET state = $2, approved_by = $3, updated_at = $4 WHERE id = $1 AND state = 'pending' RETURNING *`,
      [id, state, checker, at],
    );
    return toLien(rows[0] as LienRow, at);
  },

  /** Takes `amount` off what the lien holds, saying why and who; `released` when nothing remains. */
  async release(
    q: Queryable,
    id: string,
    amount: bigint,
    why: { reason: string; by: string },
    at: Date,
  ): Promise<Lien> {
    const { rows } = await q.query<LienRow>(
      `UPDATE liens SET remaining = remaining - $2, released = released + $2, release_reason = $4, released_by = $5,
              state = CASE WHEN remaining - $2 = 0 THEN 'released' ELSE state END,
              enforce_pending = CASE WHEN enforce_pending <= remaining - $2 THEN enforce_pending END,
              enforce_requested_by = CASE WHEN enforce_pending <= remaining - $2 THEN enforce_requested_by END,
              enforce_reason = CASE WHEN enforce_pending <= remaining - $2 THEN enforce_reason END,
              updated_at = $3
        WHERE id = $1 AND state = 'active' RETURNING *`,
      [id, amount, at, why.reason, why.by],
    );
    return toLien(rows[0] as LienRow, at);
  },

  /** An enforcement waiting for a second operator (or none: `amount` null). */
  async setPendingEnforcement(
    q: Queryable,
    id: string,
    pending: { amount: bigint; requestedBy: string; reason: string } | null,
    at: Date,
  ): Promise<Lien> {
    const { rows } = await q.query<LienRow>(
      `UPDATE liens SET enforce_pending = $2, enforce_requested_by = $3, enforce_reason = $4, updated_at = $5
        WHERE id = $1 RETURNING *`,
      [id, pending?.amount ?? null, pending?.requestedBy ?? null, pending?.reason ?? null, at],
    );
    return toLien(rows[0] as LienRow, at);
  },

  /**
   * Enforces `amount` of the lien: the merchant's wallet −amount and PW_RECOVERY +amount as `lien_enforced` entries
   * (the reason on both), what the lien holds less by as much, `enforced` when nothing remains, in one statement.
   * Throws LienOverdraw when the wallet's balance cannot pay it.
   */
  async enforce(q: Queryable, id: string, walletId: string, amount: bigint, reason: string, at: Date): Promise<Lien> {
    try {
      const { rows } = await q.query<LienRow>(
        `WITH moved AS (
           INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, lien_id, reference)
           SELECT v.w, 'lien_enforced', v.a, 0, $1, $4
             FROM (VALUES (1, $2::text, -$3::int8), (2, 'PW_RECOVERY', $3::int8)) AS v (o, w, a)
            ORDER BY v.o
           RETURNING 1
         )
         UPDATE liens SET remaining = remaining - $3, enforced = enforced + $3,
                state = CASE WHEN remaining - $3 = 0 THEN 'enforced' ELSE state END,
                enforce_pending = NULL, enforce_requested_by = NULL, enforce_reason = NULL, updated_at = $5
          WHERE id = $1 AND state = 'active' AND (SELECT count(*) FROM moved) = 2
         RETURNING *`,
        [id, walletId, amount, reason, at],
      );
      return toLien(rows[0] as LienRow, at);
    } catch (err) {
      if (isCheckViolation(err, 'wallets_balance_check')) throw new LienOverdraw();
      throw err;
    }
  },

  /** True when the checker may approve the maker's request (migration 015's lineage; both named by e-mail). */
  async independent(q: Queryable, maker: string, checker: string): Promise<boolean> {
    const { rows } = await q.query<{ ok: boolean }>(
      `SELECT coalesce((SELECT operators_independent(m.id, c.id)
                          FROM operators m, operators c
                         WHERE lower(m.email) = lower($1) AND lower(c.email) = lower($2)), true) AS ok`,
      [maker, checker],
    );
    return rows[0]?.ok ?? true;
  },
};
