import type { PaymentMode } from '@payrail/protocol';

/** What a rail is told about a transfer; `payoutId` is the idempotency key of every call. */
export interface Transfer {
  payoutId: string;
  amount: bigint;
  paymentMode: PaymentMode;
  beneficiaryName: string;
  accountNumber: string;
  ifsc: string;
  remarks: string;
  /** The rail's own reference, once `submit` returned one. */
  reference: string | null;
}

/** A status the rail reports for a transfer. */
export interface RailUpdate {
  status: 'PROCESSING' | 'PENDING' | 'SUCCESS' | 'FAILED';
  utr?: string;
  message?: string;
  reference?: string;
}

/**
 * The interface in front of every bank integration. The worker calls it outside database transactions and
 * records what it answers; a connector must therefore be idempotent by `payoutId`.
 */
export interface BankConnector {
  readonly name: string;
  /** Beneficiary account verification at initiation: false refuses the payout with 4013. */
  verifyBeneficiary(accountNumber: string, ifsc: string): Promise<boolean>;
  /** Hands the transfer to the bank (INITIATED → PROCESSING). */
  submit(transfer: Transfer): Promise<RailUpdate>;
  /** The transfer's status now, or null when nothing has changed. */
  poll(transfer: Transfer, current: 'PROCESSING' | 'PENDING'): Promise<RailUpdate | null>;
  /**
   * How long to wait before the next step of a transfer in `status`; null when the rail will not move it by
   * itself (it waits for an operator's resolution).
   */
  nextStepDelayMs(status: 'INITIATED' | 'PROCESSING' | 'PENDING' | 'FAILED'): number | null;
}
