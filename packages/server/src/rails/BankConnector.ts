import type { PaymentMode } from '@payrail/protocol';

/** What a rail is told about a transfer. */
export interface Transfer {
  payoutId: string;
  /**
   * The bank's idempotency key: always the payout id. A connector passes it with the submission, so that the
   * one resubmission Payrail may make (after a crash between the call and the record of its answer) is
   * recognised by the bank as the same transfer.
   */
  idempotencyKey: string;
  amount: bigint;
  paymentMode: PaymentMode;
  beneficiaryName: string;
  accountNumber: string;
  ifsc: string;
  remarks: string;
  /** The rail's own reference, once the submission was accepted with one. */
  reference: string | null;
}

/** The only two answers to a submission: the bank took the transfer (INITIATED → PROCESSING), or refused it. */
export type SubmitAnswer = { accepted: true; reference?: string } | { accepted: false; reason: string };

/**
 * A later report on a submitted transfer: still PROCESSING, PENDING (awaiting the beneficiary bank), or settled.
 * Whether the report is allowed from the payout's current status is Payrail's decision, not the connector's.
 */
export type RailOutcome =
  | { status: 'PROCESSING' }
  | { status: 'PENDING'; reason?: string }
  | { status: 'SUCCESS'; utr: string }
  | { status: 'FAILED'; reason: string };

/**
 * The interface in front of every bank integration (docs/operations.md, "Bank connectors"). The worker calls it
 * outside database transactions. `submit` is called once per payout; its answer only says accepted or refused.
 * Outcomes come later, from `poll` or from a bank notification (BankNotifications.report). An answer the
 * transition table refuses is recorded on the payout as `rail_error` for the operator, never retried.
 * FAILED → REFUNDED is Payrail's (PayoutLifecycle), not the connector's.
 */
export interface BankConnector {
  readonly name: string;
  /** Beneficiary account verification at initiation: false refuses the payout with 4013. */
  verifyBeneficiary(accountNumber: string, ifsc: string): Promise<boolean>;
  /** Hands the transfer to the bank, with `transfer.idempotencyKey`. */
  submit(transfer: Transfer): Promise<SubmitAnswer>;
  /** The transfer's outcome now (null: nothing new). */
  poll(transfer: Transfer): Promise<RailOutcome | null>;
  /** How long after initiation the transfer is submitted. */
  readonly submitDelayMs: number;
  /**
   * How long to wait before polling a transfer in `status`; null when the rail does not poll it (the outcome
   * comes from a notification or an operator's resolution).
   */
  pollDelayMs(status: 'PROCESSING' | 'PENDING'): number | null;
}
