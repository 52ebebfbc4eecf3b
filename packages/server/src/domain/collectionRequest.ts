import {
  COLLECTION_TXN_TYPES,
  CollectionCodes,
  isId,
  isSenderId,
  parseRupees,
  withMessage,
  type CollectionTxnType,
} from '@payrail/protocol';
import { callbackUrlProblem } from './callbackUrl.ts';
import { RequestRejected } from './RequestRejected.ts';

export const COLLECTION_MIN_PAISE = 100n;
export const COLLECTION_MAX_PAISE = 100_000_00n;
const MAX_REMARKS = 255;
export const MAX_CHANNEL = 20;
/** A UPI virtual payment address: handle@provider. */
export const VPA_PATTERN = /^[A-Za-z0-9._-]{2,256}@[A-Za-z][A-Za-z0-9]{1,63}$/;

export interface CollectionFields {
  senderId: string;
  amount: bigint;
  remarks: string;
  walletId: string | null;
  callbackUrl: string | null;
  payerVpa: string | null;
  /** Payee address asked for; null: the merchant's configured one. */
  vpa: string | null;
  txnType: CollectionTxnType;
  channel: string;
}

const invalid = (field: string, rule: string): never => {
  throw new RequestRejected(withMessage(CollectionCodes.invalidField, `Invalid ${field}: ${rule}`));
};

/** An optional text field: absent, null and "" are all "not given". */
function optionalText(plain: Record<string, unknown>, field: string): string | null {
  const value = plain[field];
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') return invalid(field, 'must be text');
  return value;
}

/** Absent and null are "not given"; anything else must be a valid amount. */
const givenAmount = (value: unknown) => value !== undefined && value !== null;

/**
 * `requestAmount` (the interface's name) or its alias `amount`: 1.00–100000.00 with at most two decimals, as text
 * or a JSON number. Neither given, either invalid, or both given with different values: 4110.
 */
function parseAmount(plain: Record<string, unknown>): bigint {
  const given = [plain.requestAmount, plain.amount].filter(givenAmount);
  const parsed = given.map(parseRupees);
  const [first] = parsed;
  if (first === undefined || first === null) throw new RequestRejected(CollectionCodes.invalidAmount);
  for (const amount of parsed) {
    if (amount === null || amount < COLLECTION_MIN_PAISE || amount > COLLECTION_MAX_PAISE) {
      throw new RequestRejected(CollectionCodes.invalidAmount);
    }
    if (amount !== first) {
      throw new RequestRejected(
        withMessage(CollectionCodes.invalidAmount, 'Invalid amount: requestAmount and amount differ'),
      );
    }
  }
  return first;
}

/** INTENT or COLLECT (any case); when absent, COLLECT if a payer address is given (the earlier rule), else INTENT. */
function parseTxnType(plain: Record<string, unknown>, payerVpa: string | null): CollectionTxnType {
  const raw = optionalText(plain, 'txnType');
  if (raw === null) return payerVpa ? 'COLLECT' : 'INTENT';
  const upper = raw.toUpperCase();
  const type = COLLECTION_TXN_TYPES.find((t) => t === upper);
  if (!type) return invalid('txnType', 'use INTENT or COLLECT');
  if (type === 'COLLECT' && !payerVpa) return invalid('payerVpa', 'required when txnType is COLLECT');
  return type;
}

/**
 * Checks a decrypted collection request: senderId (4111), requestAmount/amount (4110), then remarks, walletId,
 * callbackUrl, payerVpa, vpa, txnType and channel (4111, the message names the field).
 */
export function parseCollectionFields(plain: Record<string, unknown>): CollectionFields {
  if (!isSenderId(plain.senderId)) invalid('senderId', '1-50 characters of A-Z a-z 0-9 . _ -');
  const amount = parseAmount(plain);
  const remarks = optionalText(plain, 'remarks') ?? '';
  if (remarks.length > MAX_REMARKS) invalid('remarks', `text of at most ${MAX_REMARKS} characters`);
  const walletId = optionalText(plain, 'walletId');
  if (walletId !== null && !isId('wallet', walletId)) invalid('walletId', 'not a wallet id');
  const callbackUrl = optionalText(plain, 'callbackUrl');
  const urlProblem = callbackUrl === null ? null : callbackUrlProblem(callbackUrl);
  if (urlProblem) invalid('callbackUrl', urlProblem);
  const payerVpa = optionalText(plain, 'payerVpa');
  if (payerVpa !== null && !VPA_PATTERN.test(payerVpa)) invalid('payerVpa', 'a UPI address like name@bank');
  const vpa = optionalText(plain, 'vpa');
  if (vpa !== null && !VPA_PATTERN.test(vpa)) invalid('vpa', 'a UPI address like name@bank');
  const txnType = parseTxnType(plain, payerVpa);
  const channel = optionalText(plain, 'channel') ?? '';
  // Counted in characters (code points), as a person reads them; control characters would garble logs and pages.
  if ([...channel].length > MAX_CHANNEL) invalid('channel', `text of at most ${MAX_CHANNEL} characters`);
  if ([...channel].some((ch) => ch < ' ' || ch === '\u007f')) invalid('channel', 'must not contain control characters');
  return {
    senderId: plain.senderId as string,
    amount,
    remarks,
    walletId,
    callbackUrl,
    payerVpa,
    vpa,
    txnType,
    channel,
  };
}
