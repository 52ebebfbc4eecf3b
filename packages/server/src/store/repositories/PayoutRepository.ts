import { ID_PREFIX, type PaymentMode, type PayoutStatus, type Scheme } from '@payrail/protocol';
import type { Payout } from '../../domain/Payout.ts';
import type { Queryable } from '../Database.ts';
import { createdIdBoundsWhere, createdRangeWhere } from '../createdRangeWhere.ts';

export interface PayoutRow {
  id: string;
  merchant_id: string | null;
  wallet_id: string;
  sender_id: string;
  amount: bigint;
  payment_mode: PaymentMode;
  beneficiary_name: string;
  beneficiary_account: string;
  beneficiary_ifsc: string;
  bank_name: string;
  remarks: string;
  callback_url: string | null;
  scheme: Scheme;
  status: PayoutStatus;
  status_message: string;
  utr: string;
  rail: string;
  rail_reference: string | null;
  submitted_at: Date | null;
  submit_attempts: number;
  rail_error: string | null;
  rail_retry_since?: Date | null;
  submit_answers?: number;
  failure_reason: string | null;
  returned_at?: Date | null;
  return_reason?: string | null;
  utr_invented?: boolean;
  ist_day: string;
  ist_month: string;
  batch_id?: string | null;
  settlement_id?: string | null;
  exception_id?: string | null;
  fee?: bigint;
  tax?: bigint;
  created_at: Date;
  updated_at: Date;
}

export const toPayout = (r: PayoutRow): Payout => ({
  id: r.id,
  merchantId: r.merchant_id,
  walletId: r.wallet_id,
  senderId: r.sender_id,
  amount: r.amount,
  paymentMode: r.payment_mode,
  beneficiary: {
    name: r.beneficiary_name,
    accountNumber: r.beneficiary_account,
    ifsc: r.beneficiary_ifsc,
    bankName: r.bank_name,
  },
  remarks: r.remarks,
  callbackUrl: r.callback_url,
  scheme: r.scheme,
  status: r.status,
  statusMessage: r.status_message,
  utr: r.utr,
  rail: r.rail,
  railReference: r.rail_reference,
  submittedAt: r.submitted_at,
  submitAttempts: Number(r.submit_attempts),
  railError: r.rail_error,
  railRetrySince: r.rail_retry_since ?? null,
  submitAnswers: Number(r.submit_answers ?? 0),
  failureReason: r.failure_reason,
  returnedAt: r.returned_at ?? null,
  returnReason: r.return_reason ?? null,
  utrInvented: r.utr_invented ?? false,
  istDay: r.ist_day,
  istMonth: r.ist_month,
  batchId: r.batch_id ?? null,
  settlementId: r.settlement_id ?? null,
  exceptionId: r.exception_id ?? null,
  fee: r.fee ?? 0n,
  tax: r.tax ?? 0n,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export interface PayoutPageQuery {
  merchantId?: string;
  status?: PayoutStatus;
  limit: number;
  /** Id of the last payout of the previous page (pages run newest first). */
  after?: string;
  /** Created at or after / before these instants (the console's IST date filters). */
  createdFrom?: Date;
  createdBefore?: Date;
}

export interface TransitionFields {
  statusMessage: string;
  utr?: string;
  railReference?: string;
  /** Who makes the change, for the history (`rail:<name>`, `worker`, `operator:<name>`, `system`). */
  actor: string;
  /** SUCCESS → REFUNDED only: why the money came back (the database stamps returned_at). */
  returnReason?: string;
  /** The `utr` given is Payrail's own, not the bank's (an operator's resolve without one). */
  utrInvented?: boolean;
}

export type OpenRefusal =
  | 'insufficient_balance'
  /** PAYRAIL_REQUIRE_PRICING and the merchant has no pricing plan. */
  | 'no_pricing'
  | 'daily_limit'
  | 'monthly_limit'
  /** The merchant is no longer active, or its credentials were rotated since the token was issued. */
  | 'merchant_changed'
  /** The wallet does not exist or is another merchant's. */
  | 'foreign_wallet';

/** The initiation write was refused by the database; nothing was recorded. */
export class PayoutOpenRefused extends Error {
  constructor(readonly reason: OpenRefusal) {
    super(`payout refused: ${reason}`);
    this.name = 'PayoutOpenRefused';
  }
}

const OPEN_REFUSALS: Record<string, OpenRefusal> = {
  PR001: 'merchant_changed',
  PR008: 'foreign_wallet',
  PR002: 'insufficient_balance',
  PR010: 'daily_limit',
  PR011: 'monthly_limit',
  PR015: 'no_pricing',
};

export interface OpenTerms {
  /** The credentials version of the caller's token: the merchant must still have it (and be active). */
  credentialsVersion: number;
  /** Delay of the first background step; null when the rail does not move a new payout by itself. */
  firstStepDelayMs: number | null;
  /** GST on fees, in hundredths of a percent (18 % = 1800): PAYRAIL_GST_RATE. */
  gstRateBp: number;
  /** PAYRAIL_REQUIRE_PRICING: a merchant without a pricing plan is refused (`no_pricing`). */
  requirePricing: boolean;
}

/** What became of one element of `openMany`: its payout (null: a duplicate sender_id), or what refused it. */
export type OpenOutcome = { ok: true; payout: Payout | null } | { ok: false; error: Error };

export const PayoutRepository = {
  /**
   * Records a new payout with its debit, allowances and first step in one statement, the only round trip of an
   * initiation (function `payout_open_checked`, migrations 013 and 029, over `payout_open`): it also checks that the
   * merchant is active with the token's credentials version and owns the wallet, reads the allowances and the pricing
   * plan from the merchant's rows, and debits the fee and its GST with the amount. Null when the merchant already
   * used the sender_id; PayoutOpenRefused for every refusal. Initiations go through `openMany` (in groups); this lone
   * call is the reference the group's answers are tested against.
   */
  async open(q: Queryable, p: Payout, terms: OpenTerms): Promise<Payout | null> {
    try {
      const { rows } = await q.query<PayoutRow>(
        `SELECT * FROM payout_open_checked($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,
                                           $18, $19, $20, $21, $22)`,
        [
          p.id,
          p.merchantId,
          terms.credentialsVersion,
          p.walletId,
          p.senderId,
          p.amount,
          p.paymentMode,
          p.beneficiary.name,
          p.beneficiary.accountNumber,
          p.beneficiary.ifsc,
          p.beneficiary.bankName,
          p.remarks,
          p.callbackUrl,
          p.scheme,
          p.statusMessage,
          p.rail,
          p.istDay,
          p.istMonth,
          p.createdAt,
          terms.firstStepDelayMs,
          terms.gstRateBp,
          terms.requirePricing,
        ],
      );
      return rows[0] ? toPayout(rows[0]) : null;
    } catch (err) {
      const reason = OPEN_REFUSALS[(err as { code?: string }).code ?? ''];
      if (reason) throw new PayoutOpenRefused(reason);
      throw err;
    }
  },

  /**
   * Opens several initiations in one statement (function `payout_open_many`, migration 042): each element exactly as
   * `open` would, one after the other in the given order, each in its own subtransaction, so that one element's
   * refusal or error never fails another. One outcome per element, in order: its payout (null when the merchant
   * already used the sender_id), or the error `open` would have thrown for it (PayoutOpenRefused for a refusal).
   * A deadlock or a connection error fails the whole statement (the driver retries a deadlock, as it would `open`).
   */
  async openMany(q: Queryable, items: readonly { payout: Payout; terms: OpenTerms }[]): Promise<OpenOutcome[]> {
    const col = <T>(f: (item: { payout: Payout; terms: OpenTerms }) => T) => items.map(f);
    const { rows } = await q.query<PayoutRow & { o_pos: number; o_sqlstate: string | null; o_message: string | null }>(
      `SELECT r.o_pos, r.o_sqlstate, r.o_message, (r.o_payout).*
         FROM payout_open_many($1::text[], $2::text[], $3::int4[], $4::text[], $5::text[], $6::int8[], $7::text[],
                               $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[],
                               $15::text[], $16::text[], $17::text[], $18::text[], $19::timestamptz[],
                               $20::float8[], $21::int4[], $22::boolean[]) AS r`,
      [
        col((i) => i.payout.id),
        col((i) => i.payout.merchantId),
        col((i) => i.terms.credentialsVersion),
        col((i) => i.payout.walletId),
        col((i) => i.payout.senderId),
        col((i) => i.payout.amount.toString()),
        col((i) => i.payout.paymentMode),
        col((i) => i.payout.beneficiary.name),
        col((i) => i.payout.beneficiary.accountNumber),
        col((i) => i.payout.beneficiary.ifsc),
        col((i) => i.payout.beneficiary.bankName),
        col((i) => i.payout.remarks),
        col((i) => i.payout.callbackUrl),
        col((i) => i.payout.scheme),
        col((i) => i.payout.statusMessage),
        col((i) => i.payout.rail),
        col((i) => i.payout.istDay),
        col((i) => i.payout.istMonth),
        col((i) => i.payout.createdAt.toISOString()),
        col((i) => i.terms.firstStepDelayMs),
        col((i) => i.terms.gstRateBp),
        col((i) => i.terms.requirePricing),
      ],
    );
    const outcomes: OpenOutcome[] = items.map(() => ({
      ok: false,
      error: new Error('payout_open_many: no answer for the element'),
    }));
    for (const r of rows) {
      const pos = Number(r.o_pos) - 1;
      if (r.o_sqlstate !== null) {
        const reason = OPEN_REFUSALS[r.o_sqlstate];
        outcomes[pos] = {
          ok: false,
          error: reason
            ? new PayoutOpenRefused(reason)
            : Object.assign(new Error(r.o_message ?? 'payout_open_many: element failed'), { code: r.o_sqlstate }),
        };
      } else {
        outcomes[pos] = { ok: true, payout: r.id === null ? null : toPayout(r) };
      }
    }
    return outcomes;
  },

  async findById(q: Queryable, id: string): Promise<Payout | null> {
    const { rows } = await q.query<PayoutRow>('SELECT * FROM payouts WHERE id = $1', [id]);
    return rows[0] ? toPayout(rows[0]) : null;
  },

  /** Locks the payout row for the rest of the transaction. */
  async lockById(q: Queryable, id: string): Promise<Payout | null> {
    const { rows } = await q.query<PayoutRow>('SELECT * FROM payouts WHERE id = $1 FOR UPDATE', [id]);
    return rows[0] ? toPayout(rows[0]) : null;
  },

  async findBySenderId(q: Queryable, merchantId: string, senderId: string): Promise<Payout | null> {
    const { rows } = await q.query<PayoutRow>('SELECT * FROM payouts WHERE merchant_id = $1 AND sender_id = $2', [
      merchantId,
      senderId,
    ]);
    return rows[0] ? toPayout(rows[0]) : null;
  },

  /**
   * Moves a payout from `from` to `to`; null when it is no longer in `from` (someone else moved it first).
   * The database trigger refuses any move the transition table does not allow; another one records the change
   * in transaction_events with the actor, set for this transaction in the same statement. A move clears
   * rail_error (the history keeps it); FAILED keeps its message as failure_reason; a return keeps its reason.
   */
  async transition(
    q: Queryable,
    id: string,
    from: PayoutStatus,
    to: PayoutStatus,
    fields: TransitionFields,
  ): Promise<Payout | null> {
    const { rows } = await q.query<PayoutRow>(
      `UPDATE payouts AS p
          SET status = $3, status_message = $4, utr = coalesce($5, utr),
              rail_reference = coalesce($6, rail_reference), updated_at = now(), rail_error = NULL,
              rail_retry_since = NULL,
              failure_reason = CASE WHEN $3 = 'FAILED' THEN $4 ELSE failure_reason END,
              return_reason = coalesce($8, return_reason),
              utr_invented = CASE WHEN $5::text IS NULL THEN utr_invented ELSE coalesce($9::boolean, false) END
         FROM (SELECT set_config('payrail.actor', $7, true)) AS actor
        WHERE id = $1 AND status = $2
        RETURNING p.*`,
      [
        id,
        from,
        to,
        fields.statusMessage,
        fields.utr ?? null,
        fields.railReference ?? null,
        fields.actor,
        fields.returnReason ?? null,
        fields.utrInvented ?? null,
      ],
    );
    return rows[0] ? toPayout(rows[0]) : null;
  },

  /**
   * Records that the transfer is being handed to the rail, before the connector is called; null when the payout
   * is no longer INITIATED or carries a rail error (the operator's now) other than a temporary refusal. Submissions
   * whose answer was never recorded (a crash) are `submitAttempts - submitAnswers` on the result.
   */
  async claimSubmission(q: Queryable, id: string): Promise<Payout | null> {
    const { rows } = await q.query<PayoutRow>(
      `UPDATE payouts SET submitted_at = coalesce(submitted_at, now()), submit_attempts = submit_attempts + 1
        WHERE id = $1 AND status = 'INITIATED' AND (rail_error IS NULL OR rail_retry_since IS NOT NULL)
        RETURNING *`,
      [id],
    );
    return rows[0] ? toPayout(rows[0]) : null;
  },

  /**
   * A payout other than `exceptId` whose rail reference (the bank's reference of its transfer) is `reference`, if
   * any. Asked only for a PSP notification that brings a reference.
   */
  async findIdByRailReference(q: Queryable, reference: string, exceptId: string | null): Promise<string | null> {
    const { rows } = await q.query<{ id: string }>(
      'SELECT id FROM payouts WHERE rail_reference = $1 AND id IS DISTINCT FROM $2 LIMIT 1',
      [reference, exceptId],
    );
    return rows[0]?.id ?? null;
  },

  /**
   * A temporary refusal of a submission: the reason is the payout's rail_error (the admin views show it), the
   * retry period starts at the first one, and the answer counts as recorded (not lost).
   */
  async recordTemporaryRefusal(q: Queryable, id: string, reason: string): Promise<void> {
    await q.query(
      `UPDATE payouts SET rail_error = $2, rail_retry_since = coalesce(rail_retry_since, now()),
              submit_answers = submit_answers + 1
        WHERE id = $1 AND status = 'INITIATED'`,
      [id, reason],
    );
  },

  /** The connector of payouts not submitted yet (bulk items routed by their payment mode), in one statement. */
  async setRail(q: Queryable, ids: string[], rail: string): Promise<void> {
    await q.query(
      "UPDATE payouts SET rail = $2 WHERE id = ANY($1::text[]) AND status = 'INITIATED' AND submitted_at IS NULL",
      [ids, rail],
    );
  },

  /** Keeps a connector answer that could not be applied on the payout, for the operator. */
  async recordRailError(q: Queryable, id: string, error: string): Promise<void> {
    // Not a temporary refusal any more: the payout waits for the operator, not for its next submission.
    await q.query('UPDATE payouts SET rail_error = $2, rail_retry_since = NULL WHERE id = $1', [id, error]);
  },

  async page(q: Queryable, query: PayoutPageQuery): Promise<Payout[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.merchantId) {
      params.push(query.merchantId);
      where.push(`merchant_id = $${params.length}`);
    }
    if (query.status) {
      params.push(query.status);
      where.push(`status = $${params.length}`);
    }
    if (query.after) {
      params.push(query.after);
      where.push(`id < $${params.length}`);
    }
    createdRangeWhere(query, where, params);
    // Payout ids are time-ordered: the window's id bounds let the scan start at its end (issue 35).
    createdIdBoundsWhere(ID_PREFIX.payout, query, where, params);
    params.push(query.limit);
    const { rows } = await q.query<PayoutRow>(
      `SELECT * FROM payouts ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(toPayout);
  },
};
