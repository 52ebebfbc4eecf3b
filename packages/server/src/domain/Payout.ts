import {
  formatPaise,
  type PaymentMode,
  type PayoutStatus,
  type PayoutTransactionWire,
  type Scheme,
} from '@payrail/protocol';

export interface Beneficiary {
  name: string;
  accountNumber: string;
  ifsc: string;
  bankName: string;
}

export interface Payout {
  id: string;
  /**
   * The merchant whose payout it is; null for the platform's own payout (a deposit returned to its sender from the
   * suspense wallet, exceptionId names why): such a payout charges no allowance, pays no fee and sends no webhook.
   */
  merchantId: string | null;
  walletId: string;
  senderId: string;
  /** Paise. */
  amount: bigint;
  paymentMode: PaymentMode;
  beneficiary: Beneficiary;
  remarks: string;
  callbackUrl: string | null;
  scheme: Scheme;
  status: PayoutStatus;
  statusMessage: string;
  utr: string;
  rail: string;
  railReference: string | null;
  /** When the transfer was first handed to the rail, and how many times (more than 1 only after a crash). */
  submittedAt: Date | null;
  submitAttempts: number;
  /** The last connector answer that could not be applied (docs/internals/connector-interface.md), for the operator. */
  railError: string | null;
  /** Since when the connector has refused the submission for now (temporary refusals); null otherwise. */
  railRetrySince?: Date | null;
  /** Submissions whose answer was recorded (a temporary refusal is one); the rest of submitAttempts were lost. */
  submitAnswers?: number;
  /** Why it failed, kept once it is REFUNDED. */
  failureReason: string | null;
  /** When and why the bank sent back the money of this SUCCESS payout (SUCCESS → REFUNDED); null otherwise. */
  returnedAt?: Date | null;
  returnReason?: string | null;
  /** The UTR is Payrail's own, made up when an operator resolved it SUCCESS without one (migration 039). */
  utrInvented?: boolean;
  istDay: string;
  istMonth: string;
  /** The merchant's batch_id when the payout came from a bulk request (docs/merchant/bulk-and-verification.md). */
  batchId?: string | null;
  /** The settlement this payout pays (docs/operator/settlements.md); null for a merchant's own payout. */
  settlementId?: string | null;
  /** The exception whose deposit this payout returns to its sender (a platform payout); null otherwise. */
  exceptionId?: string | null;
  /** What was charged on it, in paise: the fee and its GST (0 without a pricing plan); kept after a refund. */
  fee: bigint;
  tax: bigint;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * The merchant whose allowances (daily and monthly limits) count this payout's amount, or null when none do: a
 * settlement's payout (migration 034) and the platform's own payout (a return to sender, 037) are outside them. The
 * one rule that opening, failing, returning and locking a payout all follow.
 */
export const allowanceHolder = (p: Pick<Payout, 'merchantId' | 'settlementId'>): string | null =>
  p.settlementId ? null : p.merchantId;

/** The payout transaction object of the provider interface, as it appears (decrypted) in `data` and in webhooks. */
export function toPayoutWire(p: Payout): PayoutTransactionWire {
  return {
    transaction_id: p.id,
    sender_id: p.senderId,
    wallet_id: p.walletId,
    amount: formatPaise(p.amount),
    fees: formatPaise(p.fee),
    tax: formatPaise(p.tax),
    payment_mode: p.paymentMode,
    remarks: p.remarks,
    status: p.status,
    status_message: p.statusMessage,
    utr_number: p.utr,
    callback_url: p.callbackUrl ?? '',
    beneficiary: {
      beneficiary_name: p.beneficiary.name,
      beneficiary_acc_number: p.beneficiary.accountNumber,
      beneficiary_ifsc: p.beneficiary.ifsc,
      bank_name: p.beneficiary.bankName,
    },
    timestamps: { created_at: p.createdAt.toISOString(), updated_at: p.updatedAt.toISOString() },
  };
}
