import type { Queryable } from '../Database.ts';

export type CreditRequestStatus = 'pending' | 'approved' | 'rejected';

export interface CreditRequest {
  id: string;
  walletId: string;
  amount: bigint;
  reference: string | null;
  status: CreditRequestStatus;
  requestedBy: string;
  decidedBy: string | null;
  decidedAt: Date | null;
  createdAt: Date;
}

interface CreditRequestRow {
  id: string;
  wallet_id: string;
  amount: bigint;
  reference: string | null;
  status: CreditRequestStatus;
  requested_by: string;
  decided_by: string | null;
  decided_at: Date | null;
  created_at: Date;
}

const toRequest = (r: CreditRequestRow): CreditRequest => ({
  id: r.id,
  walletId: r.wallet_id,
  amount: BigInt(r.amount),
  reference: r.reference,
  status: r.status,
  requestedBy: r.requested_by,
  decidedBy: r.decided_by,
  decidedAt: r.decided_at,
  createdAt: r.created_at,
});

/**
 * The database refused an approval: the checker is not independent of the maker (approval lineage, trigger
 * `credit_request_checker_independent`). Leaves the surrounding transaction unusable, so callers roll back.
 */
export class LineageConflict extends Error {
  constructor() {
    super('the checker is not independent of the maker');
    this.name = 'LineageConflict';
  }
}

const isLineageConflict = (err: unknown) =>
  err !== null && typeof err === 'object' && (err as { code?: unknown }).code === 'PR020';

/** Wallet credits waiting for a second operator (maker ≠ checker). */
export const CreditRequestRepository = {
  async insert(
    q: Queryable,
    r: { id: string; walletId: string; amount: bigint; reference?: string; requestedBy: string },
  ): Promise<CreditRequest> {
    const { rows } = await q.query<CreditRequestRow>(
      `INSERT INTO credit_requests (id, wallet_id, amount, reference, requested_by) VALUES ($1, $2, $3, $4, $5)
       RETURNING *`,
      [r.id, r.walletId, r.amount, r.reference ?? null, r.requestedBy],
    );
    return toRequest(rows[0] as CreditRequestRow);
  },

  async findById(q: Queryable, id: string): Promise<CreditRequest | null> {
    const { rows } = await q.query<CreditRequestRow>('SELECT * FROM credit_requests WHERE id = $1', [id]);
    return rows[0] ? toRequest(rows[0]) : null;
  },

  async lockById(q: Queryable, id: string): Promise<CreditRequest | null> {
    const { rows } = await q.query<CreditRequestRow>('SELECT * FROM credit_requests WHERE id = $1 FOR UPDATE', [id]);
    return rows[0] ? toRequest(rows[0]) : null;
  },

  /** Throws LineageConflict when the database finds the approving operator not independent of the maker. */
  async decide(q: Queryable, id: string, status: 'approved' | 'rejected', decidedBy: string): Promise<CreditRequest> {
    try {
      const { rows } = await q.query<CreditRequestRow>(
        `UPDATE credit_requests SET status = $2, decided_by = $3, decided_at = now() WHERE id = $1 RETURNING *`,
        [id, status, decidedBy],
      );
      return toRequest(rows[0] as CreditRequestRow);
    } catch (err) {
      if (isLineageConflict(err)) throw new LineageConflict();
      throw err;
    }
  },

  /** Newest first; `before` is the id of the last request of the previous page. */
  async page(
    q: Queryable,
    query: { status?: CreditRequestStatus; limit: number; before?: string },
  ): Promise<CreditRequest[]> {
    const params: unknown[] = [];
    const where: string[] = [];
    if (query.status !== undefined) {
      params.push(query.status);
      where.push(`status = $${params.length}`);
    }
    if (query.before !== undefined) {
      params.push(query.before);
      where.push(`id < $${params.length}`);
    }
    params.push(query.limit);
    const { rows } = await q.query<CreditRequestRow>(
      `SELECT * FROM credit_requests ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(toRequest);
  },
};
