import { CollectionCodes, Common, PayoutCodes, SettlementCodes, TokenCodes, type CodeDef } from '@payrail/protocol';
import {
  AuthenticationError,
  BankRejectedError,
  CommercialsMissingError,
  BatchRejectedError,
  BankUnavailableError,
  ConflictError,
  DecryptionError,
  InsufficientFundsError,
  LimitExceededError,
  NoSettlementAccountError,
  NothingToSettleError,
  NotFoundError,
  PayrailError,
  RateLimitError,
  ServerError,
  ValidationError,
  type Operation,
  type PayrailErrorOptions,
} from './errors.ts';

/**
 * Codes are contextual (docs/merchant/api-reference.md): 4008 is a bad account number on payouts and a bad token on
 * collections; 4002 is a short balance on payouts and nothing to settle on settlements.
 */
export type ApiFamily = 'token' | 'payout' | 'collection' | 'settlement';

export interface Refusal {
  family: ApiFamily;
  operation: Operation;
  httpStatus: number;
  /** Envelope code, or the admin-style text code, or undefined when the body had none. */
  code: number | string | undefined;
  message: string;
  retryAfterMs?: number;
  requestId?: string;
  existing?: unknown;
}

type ErrorClass = new (options: PayrailErrorOptions) => PayrailError;

/** A table of one operation family: each code of protocol's table (codes.ts) with the SDK class it throws. */
const table = (entries: [CodeDef, ErrorClass][]): Record<number, ErrorClass> =>
  Object.fromEntries(entries.map(([def, cls]) => [def.code, cls]));

/**
 * The classes of the payout family's codes. Codes 4009 and 4014 are decided before this table (conflict;
 * bank down or undecryptable); a drift test checks that every code of PayoutCodes has its class here or there.
 */
export const PAYOUT: Record<number, ErrorClass> = table([
  [Common.malformedRequest, ValidationError],
  [PayoutCodes.unauthorized, AuthenticationError],
  [PayoutCodes.insufficientBalance, InsufficientFundsError],
  [PayoutCodes.invalidBeneficiary, ValidationError],
  [PayoutCodes.invalidAmount, ValidationError],
  [PayoutCodes.amountBelowMinimum, ValidationError],
  [PayoutCodes.amountAboveMaximum, ValidationError],
  [PayoutCodes.invalidIfsc, ValidationError],
  [PayoutCodes.invalidAccountNumber, ValidationError],
  [PayoutCodes.dailyLimitExceeded, LimitExceededError],
  [PayoutCodes.monthlyLimitExceeded, LimitExceededError],
  [PayoutCodes.invalidPaymentMode, ValidationError],
  [PayoutCodes.beneficiaryVerificationFailed, BankRejectedError],
  [PayoutCodes.bankNotAllowed, BankRejectedError],
  [PayoutCodes.invalidWallet, ValidationError],
  [PayoutCodes.invalidField, ValidationError],
  [PayoutCodes.batchRefused, BatchRejectedError],
  [PayoutCodes.batchSize, ValidationError],
  [PayoutCodes.neitherIdentifier, ValidationError],
  [PayoutCodes.bothIdentifiers, ValidationError],
  [PayoutCodes.transactionNotFound, NotFoundError],
  [PayoutCodes.walletIdMissing, ValidationError],
  [PayoutCodes.walletNotFound, NotFoundError],
]);

/** The classes of the collection family's codes (4014, 4112 and 4113 are decided before this table). */
export const COLLECTION: Record<number, ErrorClass> = table([
  [CollectionCodes.neitherIdentifier, ValidationError],
  [CollectionCodes.unauthorized, AuthenticationError],
  [CollectionCodes.undecryptable, DecryptionError],
  [CollectionCodes.bothIdentifiers, ValidationError],
  [CollectionCodes.notFound, NotFoundError],
  [CollectionCodes.malformedTxnId, ValidationError],
  [CollectionCodes.otherMerchant, NotFoundError],
  [CollectionCodes.invalidAmount, ValidationError],
  [CollectionCodes.invalidField, ValidationError],
  [CollectionCodes.commercialsMissing, CommercialsMissingError],
]);

/**
 * The classes of the settlement family's codes (/settlement/v1/*, payout-style envelopes). 4014 is decided before
 * this table (undecryptable: settlements have no bank to be down).
 */
export const SETTLEMENT: Record<number, ErrorClass> = table([
  [Common.malformedRequest, ValidationError],
  [SettlementCodes.unauthorized, AuthenticationError],
  [SettlementCodes.nothingToSettle, NothingToSettleError],
  [SettlementCodes.invalidAmount, ValidationError],
  [SettlementCodes.undecryptable, DecryptionError],
  [SettlementCodes.noSettlementAccount, NoSettlementAccountError],
  [SettlementCodes.invalidField, ValidationError],
  [SettlementCodes.settlementIdMissing, ValidationError],
  [SettlementCodes.notFound, NotFoundError],
  [SettlementCodes.otherMerchant, NotFoundError],
  [SettlementCodes.walletIdMissing, ValidationError],
  [SettlementCodes.walletNotFound, NotFoundError],
]);

/** The token routes' codes: every refusal is a credentials refusal. */
export const TOKEN: Record<number, ErrorClass> = table([
  [TokenCodes.unauthorized, AuthenticationError],
  [Common.malformedRequest, AuthenticationError],
]);

/** The codes that name a conflict with an earlier request, per family (its `data` is the existing one). */
export const CONFLICT_CODES: Record<ApiFamily, readonly (number | undefined)[]> = {
  payout: [PayoutCodes.duplicateSenderId.code],
  collection: [CollectionCodes.duplicateSenderId.code, CollectionCodes.transitionNotAllowed.code],
  settlement: [],
  token: [],
};

const FAMILY_CLASSES: Record<ApiFamily, Record<number, ErrorClass>> = {
  payout: PAYOUT,
  collection: COLLECTION,
  settlement: SETTLEMENT,
  token: TOKEN,
};

function byHttpStatus(status: number): ErrorClass {
  if (status === 401 || status === 403) return AuthenticationError;
  if (status === 404) return NotFoundError;
  if (status === 400 || status === 413 || status === 422) return ValidationError;
  return ServerError;
}

/** The error class of a refused request: by the envelope code in its context, else by the HTTP status. */
export function toError(r: Refusal): PayrailError {
  const options: PayrailErrorOptions = {
    code: r.code ?? `HTTP_${r.httpStatus}`,
    message: r.message || `HTTP ${r.httpStatus}`,
    operation: r.operation,
    httpStatus: r.httpStatus,
    requestId: r.requestId,
  };
  const code = typeof r.code === 'number' ? r.code : undefined;
  if (code === Common.rateLimited.code || r.httpStatus === 429) {
    return new RateLimitError({ ...options, retryAfterMs: r.retryAfterMs });
  }
  if (code === PayoutCodes.undecryptable.code) {
    return bankDown(r) ? new BankUnavailableError(options) : new DecryptionError(options);
  }
  if (code === Common.internal.code || r.httpStatus >= 500) return new ServerError(options);
  if (CONFLICT_CODES[r.family].includes(code)) return new ConflictError({ ...options, existing: r.existing });
  if (r.httpStatus === 409) return new ConflictError({ ...options, existing: r.existing });
  // 4015 on a payout means two things: the bank is not allowed, or (by its message) no pricing plan yet.
  if (r.family === 'payout' && code === PayoutCodes.commercialsMissing.code && /commercials/i.test(r.message)) {
    return new CommercialsMissingError(options);
  }
  const classes = FAMILY_CLASSES[r.family];
  const cls = (code !== undefined ? classes[code] : undefined) ?? byHttpStatus(r.httpStatus);
  return new cls(options);
}

/**
 * 4014 means two things (packages/protocol codes.ts): "Bank down for maintenance" (HTTP 503, payout initiation
 * only: a retryable refusal) and "Payload could not be decrypted" (HTTP 400, any encrypted route: never cured by
 * retrying). The HTTP status tells them apart; the message decides when a proxy rewrote the status, and the route
 * when neither says: collections have no bank to be down.
 */
function bankDown(r: Refusal): boolean {
  if (r.family !== 'payout') return false;
  if (/bank down/i.test(r.message)) return true;
  if (/decrypt/i.test(r.message)) return false;
  return r.httpStatus === 503;
}

/** True for a refusal of the token itself, which a fresh token may cure. */
export function isTokenRefusal(family: ApiFamily, code: number | string | undefined): boolean {
  return (
    (family === 'payout' && code === PayoutCodes.unauthorized.code) ||
    (family === 'settlement' && code === SettlementCodes.unauthorized.code) ||
    (family === 'collection' && code === CollectionCodes.unauthorized.code)
  );
}
