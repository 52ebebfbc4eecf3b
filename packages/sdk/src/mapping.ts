import {
  COLLECTION_STATUSES,
  NAME_MATCH_RESULTS,
  PAYMENT_MODES,
  PAYOUT_STATUSES,
  type BalanceWire,
  type CollectionStatus,
  type CollectionTransactionWire,
  type PaymentMode,
  type PayoutStatus,
  type PayoutTransactionWire,
  type SettlementWire,
} from '@payrail/protocol';
import type {
  Balance,
  BatchCompleted,
  BeneficiaryVerification,
  BulkItemVerdict,
  BulkPayoutInput,
  BulkResult,
  BulkStatus,
  BulkStatusSummary,
  Collection,
  Deposit,
  Payout,
  PayoutInitiateInput,
  Settlement,
  SettlementCollection,
  SettlementTrigger,
} from './types.ts';

/**
 * Each wire field (protocol's wire types, tied at compile time to its published JSON Schemas) and the SDK field
 * it becomes. `satisfies` makes a wire field without a mapping, or a mapping to a field the SDK type lacks, a
 * compile error: the SDK's camelCase types cannot drift from the wire silently.
 */
export const PAYOUT_FIELDS = {
  transaction_id: 'transactionId',
  sender_id: 'senderId',
  wallet_id: 'walletId',
  amount: 'amount',
  fees: 'fees',
  tax: 'tax',
  payment_mode: 'paymentMode',
  remarks: 'remarks',
  status: 'status',
  status_message: 'statusMessage',
  utr_number: 'utr',
  callback_url: 'callbackUrl',
  beneficiary: 'beneficiary',
  timestamps: 'createdAt',
} as const satisfies Record<keyof PayoutTransactionWire, keyof Payout>;

export const BENEFICIARY_FIELDS = {
  beneficiary_name: 'name',
  beneficiary_acc_number: 'accountNumber',
  beneficiary_ifsc: 'ifsc',
  bank_name: 'bankName',
} as const satisfies Record<keyof PayoutTransactionWire['beneficiary'], keyof Payout['beneficiary']>;

export const BALANCE_FIELDS = {
  wallet_id: 'walletId',
  balance: 'balance',
  available_balance: 'availableBalance',
  on_lien: 'onLien',
  on_hold: 'onHold',
  currency: 'currency',
  updated_at: 'updatedAt',
} as const satisfies Record<keyof BalanceWire, keyof Balance>;

export const COLLECTION_FIELDS = {
  senderId: 'senderId',
  txnId: 'txnId',
  walletId: 'walletId',
  requestAmount: 'requestAmount',
  fees: 'fees',
  tax: 'tax',
  paymentMode: 'paymentMode',
  payerVpa: 'payerVpa',
  vpa: 'vpa',
  txnType: 'txnType',
  channel: 'channel',
  utr: 'utr',
  remarks: 'remarks',
  status: 'status',
  statusMessage: 'statusMessage',
  expiresAt: 'expiresAt',
  createdAt: 'createdAt',
  updatedAt: 'updatedAt',
  paymentUrl: 'paymentUrl',
  intentUrl: 'intentUrl',
} as const satisfies Record<keyof CollectionTransactionWire, keyof Collection>;

export const SETTLEMENT_FIELDS = {
  settlement_id: 'settlementId',
  merchant_id: 'merchantId',
  wallet_id: 'walletId',
  amount: 'amount',
  fees: 'fees',
  tax: 'tax',
  state: 'status',
  payout_id: 'payoutId',
  payment_mode: 'paymentMode',
  utr: 'utr',
  trigger: 'trigger',
  collection_count: 'collectionCount',
  collections: 'collections',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
} as const satisfies Record<keyof SettlementWire, keyof Settlement>;

export const SETTLEMENT_COLLECTION_FIELDS = {
  collection_id: 'collectionId',
  amount: 'amount',
  fee: 'fee',
  tax: 'tax',
  net: 'net',
} as const satisfies Record<keyof NonNullable<SettlementWire['collections']>[number], keyof SettlementCollection>;

/** Decrypted `data` objects are the server's; these read them defensively into the SDK's vocabulary. */
type Obj = Record<string, unknown>;

export class ShapeError extends Error {}

const str = (o: Obj, key: string): string => {
  const v = o[key];
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  if (v === undefined || v === null) return '';
  throw new ShapeError(`field ${key} is not text`);
};

const required = (o: Obj, key: string): string => {
  const v = str(o, key);
  if (!v) throw new ShapeError(`field ${key} is missing`);
  return v;
};

const orNull = (v: string): string | null => (v === '' ? null : v);

const date = (o: Obj, key: string): Date => {
  const d = new Date(required(o, key));
  if (Number.isNaN(d.getTime())) throw new ShapeError(`field ${key} is not a time`);
  return d;
};

const optionalDate = (o: Obj, key: string): Date | null => {
  const v = str(o, key);
  if (!v) return null;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d;
};

const obj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

function oneOf<T extends string>(values: readonly T[], value: string, key: string): T {
  if ((values as readonly string[]).includes(value)) return value as T;
  throw new ShapeError(`field ${key} has the unknown value ${JSON.stringify(value)}`);
}

export function toPayout(data: Obj): Payout {
  const b = obj(data.beneficiary);
  const t = obj(data.timestamps);
  return {
    transactionId: required(data, 'transaction_id'),
    senderId: str(data, 'sender_id'),
    walletId: str(data, 'wallet_id'),
    amount: str(data, 'amount'),
    // An answer of a server before commercials carries no fees: nothing was charged.
    fees: str(data, 'fees') || '0.00',
    tax: str(data, 'tax') || '0.00',
    paymentMode: oneOf<PaymentMode>(PAYMENT_MODES, str(data, 'payment_mode'), 'payment_mode'),
    status: oneOf<PayoutStatus>(PAYOUT_STATUSES, str(data, 'status'), 'status'),
    statusMessage: str(data, 'status_message'),
    utr: orNull(str(data, 'utr_number')),
    remarks: str(data, 'remarks'),
    callbackUrl: orNull(str(data, 'callback_url')),
    beneficiary: {
      name: str(b, 'beneficiary_name') || str(data, 'beneficiary_name'),
      accountNumber: str(b, 'beneficiary_acc_number') || str(data, 'beneficiary_acc_number'),
      ifsc: str(b, 'beneficiary_ifsc') || str(data, 'beneficiary_ifsc'),
      bankName: str(b, 'bank_name'),
    },
    createdAt: date(t, 'created_at'),
    updatedAt: date(t, 'updated_at'),
  };
}

export function toBalance(data: Obj): Balance {
  return {
    walletId: required(data, 'wallet_id'),
    balance: required(data, 'balance'),
    availableBalance: str(data, 'available_balance') || required(data, 'balance'),
    onLien: str(data, 'on_lien') || '0.00',
    onHold: str(data, 'on_hold') || '0.00',
    currency: 'INR',
    updatedAt: date(data, 'updated_at'),
  };
}

export function toCollection(data: Obj): Collection {
  const amount = str(data, 'requestAmount') || str(data, 'amount');
  const txnType = str(data, 'txnType');
  return {
    txnId: required(data, 'txnId'),
    senderId: str(data, 'senderId'),
    walletId: orNull(str(data, 'walletId')),
    amount,
    requestAmount: amount,
    fees: str(data, 'fees') || '0.00',
    tax: str(data, 'tax') || '0.00',
    paymentMode: str(data, 'paymentMode'),
    status: oneOf<CollectionStatus>(COLLECTION_STATUSES, str(data, 'status'), 'status'),
    statusMessage: str(data, 'statusMessage'),
    utr: orNull(str(data, 'utr')),
    remarks: str(data, 'remarks'),
    payerVpa: orNull(str(data, 'payerVpa')),
    vpa: orNull(str(data, 'vpa')),
    txnType: txnType === 'INTENT' || txnType === 'COLLECT' ? txnType : null,
    channel: str(data, 'channel'),
    paymentUrl: orNull(str(data, 'paymentUrl')),
    intentUrl: orNull(str(data, 'intentUrl')),
    expiresAt: optionalDate(data, 'expiresAt'),
    createdAt: date(data, 'createdAt'),
    updatedAt: date(data, 'updatedAt'),
  };
}

/** Plaintext of a payout initiation, nested shape (the server accepts it in both schemes). */
export function payoutRequestWire(input: PayoutInitiateInput): Obj {
  const wire: Obj = {
    sender_id: input.senderId,
    wallet_id: input.walletId,
    payment_mode: input.paymentMode,
    amount: input.amount,
    beneficiary: {
      beneficiary_name: input.beneficiary?.name,
      beneficiary_acc_number: input.beneficiary?.accountNumber,
      beneficiary_ifsc: input.beneficiary?.ifsc,
    },
  };
  if (input.remarks !== undefined) wire.remarks = input.remarks;
  if (input.callbackUrl !== undefined) wire.callback_url = input.callbackUrl;
  return wire;
}

/** Equal amounts in rupee text, whatever the number of fraction digits ("100" = "100.00"). */
export function sameAmount(a: string, b: string): boolean {
  const norm = (s: string) => {
    const [whole = '', fraction = ''] = s.trim().split('.');
    return `${whole.replace(/^0+(?=\d)/, '')}.${fraction.padEnd(2, '0')}`;
  };
  return norm(a) === norm(b);
}

/** Whether an existing payout is the one this request describes (a retry or a resumed batch), not another one. */
export function payoutMatches(p: Payout, input: PayoutInitiateInput): boolean {
  return (
    p.senderId === input.senderId &&
    p.walletId === input.walletId &&
    p.paymentMode === input.paymentMode &&
    sameAmount(p.amount, String(input.amount)) &&
    p.beneficiary.accountNumber === input.beneficiary.accountNumber &&
    p.beneficiary.ifsc.toUpperCase() === input.beneficiary.ifsc.toUpperCase()
  );
}

export function bulkRequestWire(input: BulkPayoutInput): Obj {
  const wire: Obj = { batch_id: input.batchId, items: (input.items ?? []).map(payoutRequestWire) };
  if (input.dryRun !== undefined) wire.dry_run = input.dryRun;
  if (input.atomic !== undefined) wire.atomic = input.atomic;
  if (input.callbackUrl !== undefined) wire.callback_url = input.callbackUrl;
  return wire;
}

const num = (o: Obj, key: string): number => {
  const v = o[key];
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  throw new ShapeError(`field ${key} is not a number`);
};

function toVerdict(o: Obj): BulkItemVerdict {
  const code = num(o, 'resp_code');
  const status = str(o, 'status');
  return {
    index: num(o, 'index'),
    senderId: str(o, 'sender_id'),
    code,
    message: str(o, 'resp_message'),
    ok: code === 2000,
    transactionId: orNull(str(o, 'transaction_id')),
    status: status ? oneOf<PayoutStatus>(PAYOUT_STATUSES, status, 'status') : null,
    fees: orNull(str(o, 'fees')),
    tax: orNull(str(o, 'tax')),
  };
}

const list = (v: unknown, key: string): Obj[] => {
  if (!Array.isArray(v)) throw new ShapeError(`field ${key} is not a list`);
  return v.map(obj);
};

export function toBulkResult(data: Obj): BulkResult {
  const s = obj(data.summary);
  return {
    batchId: required(data, 'batch_id'),
    dryRun: data.dry_run === true,
    atomic: data.atomic === true,
    summary: {
      accepted: num(s, 'accepted'),
      refused: num(s, 'refused'),
      amountAccepted: str(s, 'amount_accepted'),
      fees: str(s, 'fees') || '0.00',
      tax: str(s, 'tax') || '0.00',
    },
    items: list(data.items, 'items').map(toVerdict),
  };
}

function toStatusSummary(s: Obj): BulkStatusSummary {
  return {
    items: num(s, 'items'),
    accepted: num(s, 'accepted'),
    refused: num(s, 'refused'),
    amountAccepted: str(s, 'amount_accepted'),
    byStatus: obj(s.by_status) as BulkStatusSummary['byStatus'],
  };
}

export function toBulkStatus(data: Obj): BulkStatus {
  return {
    batchId: required(data, 'batch_id'),
    atomic: data.atomic === true,
    createdAt: date(data, 'created_at'),
    completedAt: optionalDate(data, 'completed_at'),
    summary: toStatusSummary(obj(data.summary)),
    items: list(data.items, 'items').map((o) => ({
      ...toVerdict(o),
      utr: orNull(str(o, 'utr_number')),
      statusMessage: orNull(str(o, 'status_message')),
    })),
    nextCursor: orNull(str(data, 'next_cursor')),
  };
}

/** `data` of `deposit.credited` (docs/merchant/funding-a-wallet.md). */
export function toDeposit(data: Obj): Deposit {
  return {
    depositId: required(data, 'deposit_id'),
    walletId: required(data, 'wallet_id'),
    virtualAccount: str(data, 'virtual_account'),
    amount: required(data, 'amount'),
    fees: str(data, 'fees') || '0.00',
    tax: str(data, 'tax') || '0.00',
    utr: required(data, 'utr'),
    remitterName: orNull(str(data, 'remitter_name')),
    remitterAccount: orNull(str(data, 'remitter_account')),
    remitterIfsc: orNull(str(data, 'remitter_ifsc')),
    creditedAt: date(data, 'credited_at'),
    createdAt: date(data, 'created_at'),
  };
}

export function toBatchCompleted(data: Obj): BatchCompleted {
  return {
    batchId: required(data, 'batch_id'),
    atomic: data.atomic === true,
    createdAt: date(data, 'created_at'),
    completedAt: date(data, 'completed_at'),
    summary: toStatusSummary(obj(data.summary)),
  };
}

export function toVerification(data: Obj): BeneficiaryVerification {
  return {
    verificationId: required(data, 'verification_id'),
    accountStatus: oneOf(['VALID', 'INVALID'] as const, str(data, 'account_status'), 'account_status'),
    nameAtBank: str(data, 'name_at_bank'),
    nameMatchScore: num(data, 'name_match_score'),
    nameMatchResult: oneOf(NAME_MATCH_RESULTS, str(data, 'name_match_result'), 'name_match_result'),
    bankName: str(data, 'bank_name'),
    utr: str(data, 'utr'),
    createdAt: date(data, 'created_at'),
  };
}

const SETTLEMENT_TRIGGERS: readonly SettlementTrigger[] = ['manual', 'daily', 'instant'];

/** `data` of the settlement routes and of the settlement.* webhooks (these without `collections`). */
export function toSettlement(data: Obj): Settlement {
  return {
    settlementId: required(data, 'settlement_id'),
    merchantId: str(data, 'merchant_id'),
    walletId: required(data, 'wallet_id'),
    amount: required(data, 'amount'),
    fees: str(data, 'fees') || '0.00',
    tax: str(data, 'tax') || '0.00',
    status: oneOf<PayoutStatus>(PAYOUT_STATUSES, str(data, 'state'), 'state'),
    payoutId: str(data, 'payout_id'),
    paymentMode: oneOf<PaymentMode>(PAYMENT_MODES, str(data, 'payment_mode'), 'payment_mode'),
    utr: orNull(str(data, 'utr')),
    trigger: oneOf(SETTLEMENT_TRIGGERS, str(data, 'trigger'), 'trigger'),
    collectionCount: num(data, 'collection_count'),
    collections:
      data.collections === undefined || data.collections === null
        ? null
        : list(data.collections, 'collections').map((c) => ({
            collectionId: required(c, 'collection_id'),
            amount: required(c, 'amount'),
            fee: str(c, 'fee') || '0.00',
            tax: str(c, 'tax') || '0.00',
            net: required(c, 'net'),
          })),
    createdAt: date(data, 'created_at'),
    updatedAt: date(data, 'updated_at'),
  };
}

/** `data` of GET /settlement/v1/history. */
export const toSettlementHistory = (data: Obj): Settlement[] => list(data.settlements, 'settlements').map(toSettlement);
