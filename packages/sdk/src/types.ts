import type {
  CollectionStatus,
  CollectionTxnType,
  NameMatchResult,
  PaymentMode,
  PayoutStatus,
  Scheme,
  WebhookEventType,
} from '@payrail/protocol';

export type {
  CollectionStatus,
  CollectionTxnType,
  NameMatchResult,
  PaymentMode,
  PayoutStatus,
  Scheme,
  WebhookEventType,
};

/** Rupees as decimal text with at most two fraction digits, e.g. `"100.00"` or `"2500"`. Never a float. */
export type Amount = string;

export interface PayrailOptions {
  /** Base address of the Payrail server, e.g. `https://payrail.example.com` or `http://127.0.0.1:8080`. */
  baseUrl: string;
  apiKey: string;
  secretKey: string;
  /** `whsec_…`; needed only by `webhooks.verify`. */
  webhookSecret?: string;
  /** Payload encryption of the session: `'v2'` (AES-256-GCM, default) or `'v1'` (AES-256-CBC, legacy). */
  scheme?: Scheme;
  /** Time allowed for one HTTP attempt. Default 30 000 ms. */
  timeoutMs?: number;
  retry?: RetryOptions;
  /**
   * Requests per minute the client allows itself on each status endpoint (payout, collection, settlement status),
   * shared by every call of this client, so that `waitFor` loops stay within the server's limit. Default 200.
   */
  statusRequestsPerMinute?: number;
  /** Renew the token this long before it expires. Default 30 000 ms (never more than a fifth of its lifetime). */
  tokenRenewBeforeMs?: number;
  /** A `fetch` to use instead of the global one (proxies, instrumentation). */
  fetch?: typeof fetch;
  /** Extra User-Agent text. */
  userAgent?: string;
  /**
   * The time in milliseconds since the epoch, as the client reads it for its token cache (when to renew), its
   * status-request budget and `Retry-After` dates. Default `Date.now`; tests pass a clock they move.
   */
  now?: () => number;
}

export interface RetryOptions {
  /** Retries after the first attempt. Default 3. */
  retries?: number;
  /** First backoff ceiling; each retry doubles it (full jitter). Default 250 ms. */
  baseDelayMs?: number;
  /** Largest backoff between attempts. Default 5 000 ms. */
  maxDelayMs?: number;
  /** Longest `Retry-After` the client waits for on its own; longer ones throw `RateLimitError`. Default 60 000 ms. */
  maxRetryAfterMs?: number;
}

/** Per-call options. */
export interface CallOptions {
  signal?: AbortSignal;
}

export interface BeneficiaryInput {
  /** Account holder name: 1–100 letters, spaces and `.'-`. */
  name: string;
  /** 9–18 digits. */
  accountNumber: string;
  /** e.g. `HDFC0001234`. */
  ifsc: string;
}

export interface PayoutInitiateInput {
  /** Your unique reference (1–50 of `A-Z a-z 0-9 . _ -`); it makes retries safe: one senderId, one payout. */
  senderId: string;
  walletId: string;
  paymentMode: PaymentMode;
  amount: Amount;
  beneficiary: BeneficiaryInput;
  remarks?: string;
  /** Receives the payout's webhooks. */
  callbackUrl?: string;
}

export interface InitiateOptions extends CallOptions {
  /**
   * What to do when the server already holds a payout (or collection) with this senderId that was not created by
   * this call: `'throw'` (default) a `ConflictError` carrying it, or `'return'` it when it matches the request
   * (amount, wallet, beneficiary) — the right choice when resuming a batch. A mismatching one always throws.
   */
  onDuplicate?: 'throw' | 'return';
}

export interface Beneficiary {
  name: string;
  accountNumber: string;
  ifsc: string;
  /** Bank name from the IFSC, when the server knows it. */
  bankName: string;
}

export interface Payout {
  transactionId: string;
  senderId: string;
  walletId: string;
  amount: Amount;
  /** The fee charged on this payout by your pricing plan (`'0.00'` without one); kept after a refund. */
  fees: Amount;
  /** GST charged on the fee. */
  tax: Amount;
  paymentMode: PaymentMode;
  status: PayoutStatus;
  statusMessage: string;
  /** Bank reference; null until the bank gives one. */
  utr: string | null;
  remarks: string;
  callbackUrl: string | null;
  beneficiary: Beneficiary;
  createdAt: Date;
  updatedAt: Date;
}

export type PayoutLookup = { transactionId: string; senderId?: never } | { senderId: string; transactionId?: never };

export interface Balance {
  walletId: string;
  /** The wallet's ledger balance. */
  balance: Amount;
  /** What can be spent now: `balance` minus `onLien` (equal to `balance` without liens). */
  availableBalance: Amount;
  /** Sum of the active liens an operator holds on the wallet. */
  onLien: Amount;
  /** Sum of payouts not final yet (INITIATED, PROCESSING, PENDING). */
  onHold: Amount;
  currency: 'INR';
  updatedAt: Date;
}

/**
 * `'final'`: the money has settled (SUCCESS, or REFUNDED after a failure). `'outcome'`: the outcome is known
 * (SUCCESS, FAILED or REFUNDED). Or any status, or a list of them.
 */
export type PayoutWaitTarget = 'final' | 'outcome' | PayoutStatus | readonly PayoutStatus[];

interface WaitOptionsBase extends CallOptions {
  /** Give up after this long with a `WaitTimeoutError`. Default 120 000 ms. */
  timeoutMs?: number;
  /** First poll interval; it grows ×1.5 up to `maxIntervalMs`. Default 500 ms. */
  intervalMs?: number;
  /** Default 5 000 ms. */
  maxIntervalMs?: number;
}

export interface PayoutWaitOptions extends WaitOptionsBase {
  /** Default `'final'`. */
  until?: PayoutWaitTarget;
  /** Called with the first status read and with every read whose status differs from the previous one. */
  onChange?: (payout: Payout) => void;
}

export interface CollectionWaitOptions extends WaitOptionsBase {
  /** Default `'final'`. */
  until?: CollectionWaitTarget;
  onChange?: (collection: Collection) => void;
}

interface CollectionInitiateFields {
  /** Your unique reference for the collection (separate from payout senderIds). */
  senderId: string;
  remarks?: string;
  /** Wallet credited on success; default the merchant's first wallet. */
  walletId?: string;
  callbackUrl?: string;
  /** Payee UPI address to collect into; default the merchant's configured one (live: a registered one only). */
  vpa?: string;
  /** `'INTENT'` (default) or `'COLLECT'` (needs `payerVpa`). */
  txnType?: CollectionTxnType;
  /** Free text up to 20 characters, recorded and echoed (e.g. `'android-app'`). */
  channel?: string;
  /** Payer's UPI address: makes a Collect request instead of an Intent link. */
  payerVpa?: string;
}

/**
 * A collection request. The amount (1.00 to 100000.00) as `amount` or as `requestAmount` (the interface's name);
 * when both are given they must be equal.
 */
export type CollectionInitiateInput = CollectionInitiateFields &
  ({ amount: Amount; requestAmount?: Amount } | { requestAmount: Amount; amount?: Amount });

export type CollectionPaymentMode = 'Intent' | 'Collect' | (string & {});

export interface Collection {
  txnId: string;
  senderId: string;
  walletId: string | null;
  amount: Amount;
  /** Same as `amount`, under the interface's name. */
  requestAmount: Amount;
  /** The fee charged when it succeeded (`'0.00'` until then, and without a pricing plan). */
  fees: Amount;
  /** GST charged on the fee. */
  tax: Amount;
  paymentMode: CollectionPaymentMode;
  status: CollectionStatus;
  statusMessage: string;
  utr: string | null;
  remarks: string;
  payerVpa: string | null;
  /** Payee UPI address the payment goes to. */
  vpa: string | null;
  /** `'INTENT'` or `'COLLECT'`. */
  txnType: CollectionTxnType | null;
  /** What you sent as `channel` (`''` when nothing). */
  channel: string;
  /** Payrail's hosted payment page for this collection: send it to the payer (in every answer). */
  paymentUrl: string | null;
  /** `upi://pay?…` link to show the payer (returned by `initiate`). */
  intentUrl: string | null;
  expiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export type CollectionLookup = { txnId: string; senderId?: never } | { senderId: string; txnId?: never };

/** `'final'`: SUCCESS or FAILED. */
export type CollectionWaitTarget = 'final' | CollectionStatus | readonly CollectionStatus[];

export type PayoutEventType = Exclude<Extract<WebhookEventType, `payout.${string}`>, 'payout.batch.completed'>;
export type CollectionEventType = Extract<WebhookEventType, `collection.${string}`>;
/** `settlement.initiated` … `settlement.refunded`: one per status of the settlement's payout. */
export type SettlementEventType = Extract<WebhookEventType, `settlement.${string}`>;

interface EventBase {
  /** The event id (`EV…`), also in the `webhook-id` header: deduplicate by it. */
  id: string;
  createdAt: Date;
  /** When the delivery was signed (`webhook-timestamp`). */
  timestamp: Date;
}

export type PayoutEvent = EventBase & { type: PayoutEventType; kind: 'payout'; data: Payout };
export type CollectionEvent = EventBase & { type: CollectionEventType; kind: 'collection'; data: Collection };
export type BatchEvent = EventBase & { type: 'payout.batch.completed'; kind: 'batch'; data: BatchCompleted };
export type DepositEvent = EventBase & { type: 'deposit.credited'; kind: 'deposit'; data: Deposit };
/** A settlement's status changed; `data.collections` is null (the event carries `collectionCount` only). */
export type SettlementEvent = EventBase & { type: SettlementEventType; kind: 'settlement'; data: Settlement };
export type WebhookEvent = PayoutEvent | CollectionEvent | BatchEvent | DepositEvent | SettlementEvent;

/** `data` of `deposit.credited`: a bank transfer to the wallet's virtual account, credited once per UTR. */
export interface Deposit {
  depositId: string;
  walletId: string;
  virtualAccount: string;
  /** Rupees as decimal text, as every amount. */
  amount: string;
  fees: string;
  tax: string;
  utr: string;
  remitterName: string | null;
  remitterAccount: string | null;
  remitterIfsc: string | null;
  /** When the bank credited it. */
  creditedAt: Date;
  createdAt: Date;
}

/** `data` of `payout.batch.completed`: every accepted item of the batch is final. */
export interface BatchCompleted {
  batchId: string;
  atomic: boolean;
  createdAt: Date;
  completedAt: Date;
  summary: BulkStatusSummary;
}

export interface VerifyOptions {
  /** Largest accepted distance between `webhook-timestamp` and now. Default 300; `Infinity` skips the check. */
  toleranceSeconds?: number;
  /** The current time, for tests and for checking saved deliveries. */
  now?: Date;
}

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface TokenInfo {
  token: string;
  scheme: Scheme;
  expiresAt: Date;
}

// ---- bulk payouts and beneficiary verification (docs/merchant/bulk-and-verification.md) --------------------------------------

export interface BulkPayoutInput {
  /** Your unique reference for the batch (1–50 of `A-Z a-z 0-9 . _ -`): sending it again never pays twice. */
  batchId: string;
  /** 1 to 1,000 payouts, applied in order; each with its own senderId. */
  items: PayoutInitiateInput[];
  /** Check every item as a real run would, now, and record nothing. */
  dryRun?: boolean;
  /** All or nothing: if any item is refused, nothing is recorded and `BatchRejectedError` carries every verdict. */
  atomic?: boolean;
  /** Receives `payout.batch.completed` once every accepted item is final. */
  callbackUrl?: string;
}

export interface BulkOptions extends CallOptions {
  /**
   * A batch with this batchId exists already: `'throw'` (default) a `ConflictError` whose `existing` is that
   * batch's result, or `'return'` that result (resuming). A lost answer whose request did land always returns it.
   */
  onDuplicate?: 'throw' | 'return';
}

/** One item's verdict: `code` 2000 (initiated, or would be in a dry run) or the code a single initiation gets. */
export interface BulkItemVerdict {
  index: number;
  senderId: string;
  code: number;
  message: string;
  /** True when the item passed (code 2000). */
  ok: boolean;
  /** The payout, when one was created (never in a dry run or a refused atomic batch). */
  transactionId: string | null;
  status: PayoutStatus | null;
  /** An accepted item's fee and GST (a dry run: what they would be); null for a refused one. */
  fees: Amount | null;
  tax: Amount | null;
}

export interface BulkSummary {
  accepted: number;
  refused: number;
  amountAccepted: Amount;
}

/** A bulk answer's summary: also the accepted items' fees and GST in all. */
export interface BulkResultSummary extends BulkSummary {
  fees: Amount;
  tax: Amount;
}

export interface BulkResult {
  batchId: string;
  dryRun: boolean;
  atomic: boolean;
  summary: BulkResultSummary;
  items: BulkItemVerdict[];
}

export interface BulkStatusSummary extends BulkSummary {
  items: number;
  /** How many of the batch's payouts are in each status. */
  byStatus: Partial<Record<PayoutStatus, number>>;
}

export interface BulkStatusItem extends BulkItemVerdict {
  utr: string | null;
  statusMessage: string | null;
}

export interface BulkStatus {
  batchId: string;
  atomic: boolean;
  createdAt: Date;
  /** When every accepted item became final; null until then. */
  completedAt: Date | null;
  summary: BulkStatusSummary;
  /** One page of items (200); pass `nextCursor` for the next. */
  items: BulkStatusItem[];
  nextCursor: string | null;
}

export interface BulkStatusOptions extends CallOptions {
  cursor?: string;
}

export interface BeneficiaryVerifyInput {
  name: string;
  accountNumber: string;
  ifsc: string;
}

export interface BeneficiaryVerification {
  verificationId: string;
  accountStatus: 'VALID' | 'INVALID';
  /** The account holder's name at the bank; empty when INVALID. */
  nameAtBank: string;
  /** 0–100. */
  nameMatchScore: number;
  nameMatchResult: NameMatchResult;
  bankName: string;
  utr: string;
  createdAt: Date;
}

// ---- settlements (docs/merchant/settlements.md) ----------------------------------------------------------------

/** What started a settlement: you or an operator (`manual`), the daily run, or an instant settlement. */
export type SettlementTrigger = 'manual' | 'daily' | 'instant';

export interface SettlementInitiateInput {
  /** The wallet whose collections are settled (one of yours). */
  walletId: string;
  /**
   * Settle exactly this much (rupees); the settlement covers the oldest unsettled collections first, the last one
   * possibly in part. Without it, everything settleable now. Less settleable than `amount`: `NothingToSettleError`.
   */
  amount?: Amount;
}

/** One collection a settlement covers, and the part of its net the settlement pays. */
export interface SettlementCollection {
  /** The collection's `txnId`. */
  collectionId: string;
  /** The collection's amount. */
  amount: Amount;
  /** The collection's fee this settlement deducts (`'0.00'` when an earlier settlement of it deducted it). */
  fee: Amount;
  /** GST on that fee. */
  tax: Amount;
  /** What this settlement pays of the collection. */
  net: Amount;
}

/**
 * Collections of one wallet, net of their fees, paid to your settlement account by an ordinary payout (`payoutId`,
 * whose senderId is the `settlementId`). `status` is that payout's status: SUCCESS once the bank paid it, REFUNDED
 * when it failed and the money went back to the wallet (its collections are then settleable again).
 */
export interface Settlement {
  settlementId: string;
  merchantId: string;
  walletId: string;
  /** Paid to the settlement account. */
  amount: Amount;
  /** The fees of the collections it covers (charged when they were credited, not again). */
  fees: Amount;
  /** GST on those fees. */
  tax: Amount;
  /** The status of the payout that pays it (the API's `state`). */
  status: PayoutStatus;
  payoutId: string;
  /** IMPS up to 5,00,000, else NEFT. */
  paymentMode: PaymentMode;
  /** The bank reference of the transfer; null until the bank gives one. */
  utr: string | null;
  trigger: SettlementTrigger;
  /** How many collections it covers. */
  collectionCount: number;
  /** The collections it covers: from `initiate`, `status` and `history`; null in webhook events (`collectionCount`). */
  collections: SettlementCollection[] | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface SettlementHistoryQuery {
  /** IST calendar date `YYYY-MM-DD`, inclusive; default 30 days before `to`. */
  from?: string;
  /** IST calendar date `YYYY-MM-DD`, inclusive; default today. At most 92 days from `from`. */
  to?: string;
}

/** `'final'`: SUCCESS or REFUNDED; `'outcome'`: SUCCESS, FAILED or REFUNDED; or a status, or a list of them. */
export type SettlementWaitTarget = PayoutWaitTarget;

export interface SettlementWaitOptions extends WaitOptionsBase {
  /** Default `'final'`. */
  until?: SettlementWaitTarget;
  onChange?: (settlement: Settlement) => void;
}
