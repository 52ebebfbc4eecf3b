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

/** A request as the approvals list shows it: with the merchant whose wallet it credits. */
export interface ListedCreditRequest extends CreditRequest {
  merchantId: string;
  merchantName: string;
}

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
  ): Promise<ListedCreditRequest[]> {
    const params: unknown[] = [];
    const where: string[] = [];
    if (query.status !== undefined) {
      params.push(query.status);
      where.push(`cr.status = $${params.length}`);
    }
    if (query.before !== undefined) {
      params.push(query.before);
      where.push(`cr.id < $${params.length}`);
    }
    params.push(query.limit);
    const { rows } = await q.query<CreditRequestRow & { merchant_id: string; merchant_name: string }>(
      `SELECT cr.*, w.merchant_id, m.name AS merchant_name
         FROM credit_requests cr JOIN wallets w ON w.id = cr.wallet_id JOIN merchants m ON m.id = w.merchant_id
        ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY cr.id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map((r) => ({ ...toRequest(r), merchantId: r.merchant_id, merchantName: r.merchant_name }));
  },

  /**
   * For each requester (an operator's e-mail address, as requests name them), whether `checker` is independent of
   * them: the database's `operators_independent`, the function the approval trigger calls. A name that is no
   * operator (the admin token) is nobody's lineage, as in the trigger.
   */
  async independentOf(q: Queryable, requesters: string[], checker: string): Promise<Map<string, boolean>> {
    const { rows } = await q.query<{ requester: string; independent: boolean }>(
      `SELECT r.requester,
              CASE WHEN mk.id IS NULL OR ck.id IS NULL THEN true ELSE operators_independent(mk.id, ck.id) END
                AS independent
         FROM unnest($1::text[]) AS r(requester)
         LEFT JOIN operators mk ON lower(mk.email) = lower(r.requester)
         LEFT JOIN operators ck ON lower(ck.email) = lower($2)`,
      [requesters, checker],
    );
    return new Map(rows.map((r) => [r.requester, r.independent]));
  },

  /** The direct grants of the named operators (e-mail addresses, any case), oldest first: their approval lineage. */
  async grantsOf(q: Queryable, names: string[]): Promise<{ name: string; kind: string; grantedBy: string }[]> {
    const { rows } = await q.query<{ name: string; kind: string; granted_by: string }>(
      `SELECT lower(o.email) AS name, g.kind, g.granted_by
         FROM operator_grants g JOIN operators o ON o.id = g.operator_id
        WHERE lower(o.email) = ANY ($1::text[])
        ORDER BY g.at, g.id`,
      [names.map((n) => n.toLowerCase())],
    );
    return rows.map((r) => ({ name: r.name, kind: r.kind, grantedBy: r.granted_by }));
  },
};
