import type { PaymentMode } from '@payrail/protocol';
import type { Payout } from '../domain/Payout.ts';

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
  /**
   * Which submission this is (1 for the first). More than 1 means an earlier one may have reached the bank
   * without its answer being recorded (a timeout, a connection error, a crash): a connector that can ask the bank
   * about the idempotency key asks before it submits again.
   */
  attempt: number;
}

/** What a connector is told about a payout (a submission, a poll, a bank file's payment): its one mapping. */
export const toTransfer = (p: Payout): Transfer => ({
  attempt: Math.max(1, p.submitAttempts),
  payoutId: p.id,
  idempotencyKey: p.id,
  amount: p.amount,
  paymentMode: p.paymentMode,
  beneficiaryName: p.beneficiary.name,
  accountNumber: p.beneficiary.accountNumber,
  ifsc: p.beneficiary.ifsc,
  remarks: p.remarks,
  reference: p.railReference,
});

/**
 * The answers to a submission: the bank took the transfer (INITIATED → PROCESSING), refused it for good
 * (→ FAILED, then REFUNDED), or refused it for now (`temporary`: the payout stays INITIATED, the reason is kept as
 * its rail error, and it is submitted again with backoff until the connector's `retryForMs` has passed).
 */
export type SubmitAnswer =
  | { accepted: true; reference?: string }
  | { accepted: false; reason: string; temporary?: false }
  | { accepted: false; reason: string; temporary: true };

/** What a connector can do, declared so that routing and the operator's views do not have to guess. */
export interface ConnectorCapabilities {
  payouts: boolean;
  collections: boolean;
  verification: boolean;
  /** It answers `poll`. */
  polling: boolean;
  /** It receives outcomes by notification (webhook or file) rather than, or beside, polling. */
  webhooks: boolean;
}

/** The money a connector's account holds, for the treasury view (amounts in paise). */
export interface ConnectorBalance {
  balance: bigint;
  readAt: Date;
}

/**
 * A later report on a submitted transfer: still PROCESSING, PENDING (awaiting the beneficiary bank), or settled;
 * or RETURNED: the beneficiary bank sent back the money of a transfer that succeeded (account closed, beneficiary
 * refused), which moves a SUCCESS payout to REFUNDED. A FAILED (or REFUNDED) report on a SUCCESS payout is taken as
 * a return too. Whether the report is allowed from the payout's current status is Payrail's decision, not the
 * connector's.
 */
export type RailOutcome = (
  | { status: 'PROCESSING' }
  | { status: 'PENDING'; reason?: string }
  | { status: 'SUCCESS'; utr: string }
  | { status: 'FAILED'; reason: string }
  | { status: 'RETURNED'; reason: string }
) &
  ReportedFacts;

/**
 * What an outcome may carry besides its status, checked against what Payrail sent before it is applied
 * (domain/outsideReport.ts): the amount the connector moved (paise) and its currency, and its own reference of the
 * transfer (which must be the one recorded at submission).
 */
export interface ReportedFacts {
  amount?: bigint;
  currency?: string;
  reference?: string;
}

/**
 * The interface in front of every bank integration (docs/internals/connector-interface.md). The worker calls it
 * outside database transactions. `submit` is called once per payout; its answer only says accepted or refused.
 * Outcomes come later, from `poll` or from a bank notification (BankNotifications.report). An answer the
 * transition table refuses is recorded on the payout as `rail_error` for the operator, never retried.
 * FAILED → REFUNDED is Payrail's (PayoutLifecycle), not the connector's. A return comes after the polling has
 * stopped (SUCCESS is not polled): a connector, or a bank-file import, reports it through BankNotifications.report.
 */
export interface BankConnector {
  readonly name: string;
  /** Declared abilities (shown by GET /admin/v1/connectors); optional for test doubles: payouts only. */
  readonly capabilities?: ConnectorCapabilities;
  /**
   * True when the connector asks the bank about the idempotency key before any repeated submission
   * (`transfer.attempt > 1`), so that a lost answer is recovered by asking: the stepper then does not stop after
   * a few lost answers (it does for a connector that cannot ask, and leaves the payout to the operator).
   */
  readonly readsBackSubmissions?: boolean;
  /** How long temporary refusals may go on before the payout fails; unset: the connector never answers one. */
  readonly retryForMs?: number;
  /** The balance of the account the connector pays from, when it has one to read (the upstream's wallet). */
  balance?(): Promise<ConnectorBalance>;
  /** Beneficiary account verification at initiation: false refuses the payout with 4013. */
  verifyBeneficiary(accountNumber: string, ifsc: string): Promise<boolean>;
  /** Hands the transfer to the bank, with `transfer.idempotencyKey`. */
  submit(transfer: Transfer): Promise<SubmitAnswer>;
  /** The transfer's outcome now (null: nothing new). */
  poll(transfer: Transfer): Promise<RailOutcome | null>;
  /**
   * How long after initiation the transfer is submitted; null when the connector does not submit payouts one by
   * one (bank files collect them at a cut-off).
   */
  readonly submitDelayMs: number | null;
  /**
   * How long to wait before polling a transfer in `status`; null when the rail does not poll it (the outcome
   * comes from a notification or an operator's resolution).
   */
  pollDelayMs(status: 'PROCESSING' | 'PENDING'): number | null;
}
