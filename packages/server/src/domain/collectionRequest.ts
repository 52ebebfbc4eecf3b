import { CollectionCodes, isId, isSenderId, parseRupees, withMessage } from '@payrail/protocol';
import { callbackUrlProblem } from './callbackUrl.ts';
import { RequestRejected } from './RequestRejected.ts';

export const COLLECTION_MIN_PAISE = 100n;
export const COLLECTION_MAX_PAISE = 100_000_00n;
const MAX_REMARKS = 255;
/** A UPI virtual payment address: handle@provider. */
export const VPA_PATTERN = /^[A-Za-z0-9._-]{2,256}@[A-Za-z][A-Za-z0-9]{1,63}$/;

export interface CollectionFields {
  senderId: string;
  amount: bigint;
  remarks: string;
  walletId: string | null;
  callbackUrl: string | null;
  payerVpa: string | null;
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

/**
 * Checks a decrypted collection request: senderId (4111), amount 1.00–100000.00 with at most two decimals
 * (4110), then remarks, walletId, callbackUrl and payerVpa (4111, the message names the field).
 */
export function parseCollectionFields(plain: Record<string, unknown>): CollectionFields {
  if (!isSenderId(plain.senderId)) invalid('senderId', '1-50 characters of A-Z a-z 0-9 . _ -');
  const amount = parseRupees(plain.amount);
  if (amount === null || amount < COLLECTION_MIN_PAISE || amount > COLLECTION_MAX_PAISE) {
    throw new RequestRejected(CollectionCodes.invalidAmount);
  }
  const remarks = optionalText(plain, 'remarks') ?? '';
  if (remarks.length > MAX_REMARKS) invalid('remarks', `text of at most ${MAX_REMARKS} characters`);
  const walletId = optionalText(plain, 'walletId');
  if (walletId !== null && !isId('wallet', walletId)) invalid('walletId', 'not a wallet id');
  const callbackUrl = optionalText(plain, 'callbackUrl');
  const urlProblem = callbackUrl === null ? null : callbackUrlProblem(callbackUrl);
  if (urlProblem) invalid('callbackUrl', urlProblem);
  const payerVpa = optionalText(plain, 'payerVpa');
  if (payerVpa !== null && !VPA_PATTERN.test(payerVpa)) invalid('payerVpa', 'a UPI address like name@bank');
  return {
    senderId: plain.senderId as string,
    amount,
    remarks,
    walletId,
    callbackUrl,
    payerVpa,
  };
}
