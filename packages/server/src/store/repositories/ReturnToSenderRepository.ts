import type { PaymentMode } from '@payrail/protocol';
import type { Queryable } from '../Database.ts';

/** A deposit's return to its sender, as return_to_sender_open (migration 037) opens it. */
export interface ReturnToSenderRequest {
  exceptionId: string;
  /** The deposit that brings the money into the suspense wallet (used only when the UTR is not there yet). */
  depositId: string;
  payoutId: string;
  amount: bigint;
  utr: string;
  virtualAccount: string;
  remitterName: string;
  remitterAccount: string;
  remitterIfsc: string;
  bankName: string;
  creditedAt: Date;
  mode: PaymentMode;
  rail: string;
  statusMessage: string;
  istDay: string;
  istMonth: string;
  at: Date;
}

/**
 * Why a return was not opened: the UTR is credited to a merchant's wallet already (assigned meanwhile), or an
 * earlier return of this exception is still under way.
 */
export type ReturnToSenderRefusal = 'credited' | 'in_flight';

/** The platform's payouts that return a deposit credited nowhere to its sender (docs/operator/exceptions.md). */
export const ReturnToSenderRepository = {
  /** Opens the return in the caller's transaction; null when it was opened, else why not (nothing written). */
  async open(q: Queryable, r: ReturnToSenderRequest): Promise<ReturnToSenderRefusal | null> {
    const { rows } = await q.query<{ refusal: ReturnToSenderRefusal | null }>(
      `SELECT return_to_sender_open($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
           AS refusal`,
      [
        r.exceptionId,
        r.depositId,
        r.payoutId,
        r.amount,
        r.utr,
        r.virtualAccount,
        r.remitterName,
        r.remitterAccount,
        r.remitterIfsc,
        r.bankName,
        r.creditedAt,
        r.mode,
        r.rail,
        r.statusMessage,
        r.istDay,
        r.istMonth,
        r.at,
      ],
    );
    return rows[0]?.refusal ?? null;
  },
};
