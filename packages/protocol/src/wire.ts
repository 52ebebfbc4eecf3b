/** Decrypted `data` shapes and plaintext requests of the merchant API, exactly as they cross the wire. */

export const PAYOUT_STATUSES = ['INITIATED', 'PROCESSING', 'PENDING', 'SUCCESS', 'FAILED', 'REFUNDED'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

export const PAYMENT_MODES = ['IMPS', 'NEFT', 'RTGS'] as const;
export type PaymentMode = (typeof PAYMENT_MODES)[number];

export const COLLECTION_STATUSES = ['INITIATED', 'PENDING', 'SUCCESS', 'FAILED'] as const;
export type CollectionStatus = (typeof COLLECTION_STATUSES)[number];

/** INTENT: the payer opens a upi:// link (or scans its QR); COLLECT: a request is sent to the payer's app. */
export const COLLECTION_TXN_TYPES = ['INTENT', 'COLLECT'] as const;
export type CollectionTxnType = (typeof COLLECTION_TXN_TYPES)[number];

export interface PayoutTransactionWire {
  transaction_id: string;
  sender_id: string;
  wallet_id: string;
  amount: string;
  payment_mode: PaymentMode;
  remarks: string;
  status: PayoutStatus;
  status_message: string;
  utr_number: string;
  callback_url: string;
  beneficiary: {
    beneficiary_name: string;
    beneficiary_acc_number: string;
    beneficiary_ifsc: string;
    bank_name: string;
  };
  timestamps: { created_at: string; updated_at: string };
}

export interface BalanceWire {
  wallet_id: string;
  balance: string;
  /** Same value as `balance`: the name existing integrations read. */
  available_balance: string;
  on_hold: string;
  currency: 'INR';
  updated_at: string;
}

export interface CollectionTransactionWire {
  senderId: string;
  txnId: string;
  walletId: string;
  requestAmount: string;
  paymentMode: string;
  payerVpa: string;
  /** Payee address the payment goes to. */
  vpa: string;
  txnType: CollectionTxnType;
  /** Free text of the merchant (at most 20 characters), echoed. */
  channel: string;
  utr: string;
  remarks: string;
  status: CollectionStatus;
  statusMessage: string;
  expiresAt: string;
  createdAt: string;
  updatedAt: string;
  /** Payrail's hosted payment page of this collection (unguessable link). */
  paymentUrl: string;
  intentUrl?: string;
}

/** Plaintext of POST /collection/v1/status: exactly one of the two. */
export interface CollectionStatusRequestWire {
  txnId?: string;
  senderId?: string;
}

/** Plaintext of a payout initiation, nested shape (flat shape carries the beneficiary fields at top level). */
export interface PayoutInitiateRequestWire {
  sender_id: string;
  wallet_id: string;
  payment_mode: string;
  amount: string | number;
  beneficiary?: { beneficiary_name: string; beneficiary_acc_number: string; beneficiary_ifsc: string };
  beneficiary_name?: string;
  beneficiary_acc_number?: string;
  beneficiary_ifsc?: string;
  remarks?: string;
  callback_url?: string;
}

export interface CollectionInitiateRequestWire {
  senderId: string;
  /** Decimal text with two fraction digits (a JSON number is accepted too). */
  requestAmount?: string | number;
  /** Alias of `requestAmount`; when both are given they must be equal. */
  amount?: string | number;
  /** Payee address (default: the merchant's configured one). */
  vpa?: string;
  txnType?: CollectionTxnType;
  channel?: string;
  remarks?: string;
  walletId?: string;
  callbackUrl?: string;
  payerVpa?: string;
}

export const WEBHOOK_EVENT_TYPES = [
  'payout.processing',
  'payout.pending',
  'payout.success',
  'payout.failed',
  'payout.refunded',
  'collection.pending',
  'collection.success',
  'collection.failed',
  'payout.batch.completed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Body of a webhook delivery; `data` is the transaction object encrypted with the transaction's scheme. */
export interface WebhookEventWire {
  id: string;
  type: WebhookEventType;
  created_at: string;
  data: string;
}

/** Plaintext of `payload` of POST /payout/v1/bulk (docs/merchant/bulk-and-verification.md). */
export interface BulkRequestWire {
  batch_id: string;
  items: PayoutInitiateRequestWire[];
  dry_run?: boolean;
  atomic?: boolean;
  callback_url?: string;
}

/** One item's verdict: 2000 with the payout it created, or the code a single initiation would have got. */
export interface BulkItemVerdictWire {
  index: number;
  sender_id: string;
  resp_code: number;
  resp_message: string;
  transaction_id?: string;
  status?: PayoutStatus;
}

export interface BulkSummaryWire {
  accepted: number;
  refused: number;
  /** Sum of the accepted items' amounts, rupees with two decimals. */
  amount_accepted: string;
}

/** Decrypted `data` of POST /payout/v1/bulk (also of its 4018 and 4009 answers). */
export interface BulkResultWire {
  batch_id: string;
  dry_run: boolean;
  atomic: boolean;
  summary: BulkSummaryWire;
  items: BulkItemVerdictWire[];
}

/** Decrypted `data` of GET /payout/v1/bulk/status: the summary by status and one page of items. */
export interface BulkStatusWire {
  batch_id: string;
  atomic: boolean;
  created_at: string;
  /** When every accepted item became final (SUCCESS or REFUNDED); null until then. */
  completed_at: string | null;
  summary: BulkSummaryWire & { items: number; by_status: Partial<Record<PayoutStatus, number>> };
  items: (BulkItemVerdictWire & { utr_number?: string; status_message?: string })[];
  has_more: boolean;
  next_cursor: string | null;
}

/** Plaintext of `payload` of POST /payout/v1/beneficiary/verify (docs/merchant/bulk-and-verification.md). */
export interface BeneficiaryVerifyRequestWire {
  beneficiary_name: string;
  beneficiary_acc_number: string;
  beneficiary_ifsc: string;
}

export const NAME_MATCH_RESULTS = [
  'EXACT_MATCH',
  'GOOD_PARTIAL_MATCH',
  'MODERATE_PARTIAL_MATCH',
  'POOR_PARTIAL_MATCH',
  'NO_MATCH',
] as const;
export type NameMatchResult = (typeof NAME_MATCH_RESULTS)[number];

/** Decrypted `data` of POST /payout/v1/beneficiary/verify. */
export interface BeneficiaryVerificationWire {
  verification_id: string;
  account_status: 'VALID' | 'INVALID';
  name_at_bank: string;
  name_match_score: number;
  name_match_result: NameMatchResult;
  bank_name: string;
  utr: string;
  created_at: string;
}
