/**
 * Response codes of the merchant API with the HTTP status that accompanies each (docs/merchant/api-reference.md).
 * Codes are contextual: the same number means different things on different operations, so each
 * operation has its own table and the HTTP status travels with the code instead of being derived from it.
 */
export interface CodeDef {
  readonly code: number;
  readonly http: number;
  readonly message: string;
}

const def = (code: number, http: number, message: string): CodeDef => ({ code, http, message });

/** Codes shared by every merchant operation. */
export const Common = {
  malformedRequest: def(4000, 400, 'Malformed request: send a JSON object body and well-formed query parameters'),
  bodyTooLarge: def(4000, 413, 'Request body exceeds 64 KiB'),
  rateLimited: def(4290, 429, 'Rate limit exceeded'),
  internal: def(5000, 500, 'Internal server error'),
  /** The database is unreachable (an outage): 5000 as any server-side failure, HTTP 503 because it is transient. */
  unavailable: def(5000, 503, 'Service temporarily unavailable, try again shortly'),
} as const;

export const TokenCodes = {
  ok: def(2000, 200, 'Token generated'),
  unauthorized: def(4001, 401, 'Unauthorized access: invalid API key or secret key'),
  tooManyFailures: def(4290, 429, 'Too many failed attempts, try again later'),
} as const;

export const PayoutCodes = {
  initiated: def(2000, 200, 'Transaction initiated successfully'),
  fetched: def(2000, 200, 'Transaction fetched successfully'),
  balanceFetched: def(2000, 200, 'Balance fetched successfully'),
  unauthorized: def(4001, 401, 'Invalid or expired token'),
  insufficientBalance: def(4002, 422, 'Insufficient wallet balance'),
  invalidBeneficiary: def(4003, 400, 'Invalid beneficiary details'),
  invalidAmount: def(4004, 400, 'Invalid amount format'),
  amountBelowMinimum: def(4005, 400, 'Amount below the minimum'),
  amountAboveMaximum: def(4006, 400, 'Amount above the maximum'),
  invalidIfsc: def(4007, 400, 'Invalid IFSC code'),
  invalidAccountNumber: def(4008, 400, 'Invalid account number'),
  duplicateSenderId: def(4009, 409, 'Duplicate client reference'),
  dailyLimitExceeded: def(4010, 422, 'Daily limit exceeded'),
  monthlyLimitExceeded: def(4011, 422, 'Monthly limit exceeded'),
  invalidPaymentMode: def(4012, 400, 'Invalid transfer mode'),
  beneficiaryVerificationFailed: def(4013, 422, 'Beneficiary account verification failed'),
  bankDown: def(4014, 503, 'Bank down for maintenance'),
  undecryptable: def(4014, 400, 'Payload could not be decrypted'),
  bankNotAllowed: def(4015, 422, 'Transaction not allowed to this bank'),
  /** PAYRAIL_REQUIRE_PRICING and the merchant has no pricing plan (the provider's words). */
  commercialsMissing: def(4015, 422, 'Commercials are not yet configured and activated'),
  invalidWallet: def(4016, 400, 'Invalid wallet_id'),
  invalidField: def(4017, 400, 'Invalid field'),
  neitherIdentifier: def(4101, 400, 'Either transaction_id or sender_id is required'),
  bothIdentifiers: def(4102, 400, 'Give only one of transaction_id and sender_id'),
  transactionNotFound: def(4103, 404, 'Transaction not found'),
  walletIdMissing: def(4201, 400, 'wallet_id is required'),
  walletNotFound: def(4202, 404, 'Wallet not found'),
  // Bulk payouts and beneficiary verification (docs/merchant/bulk-and-verification.md).
  batchProcessed: def(2000, 200, 'Batch processed'),
  batchChecked: def(2000, 200, 'Batch checked (dry run): nothing recorded'),
  batchFetched: def(2000, 200, 'Batch fetched successfully'),
  duplicateBatchId: def(4009, 409, 'Duplicate batch_id'),
  batchRefused: def(4018, 422, 'Atomic batch refused: at least one item failed, nothing recorded'),
  batchSize: def(4019, 400, 'A batch holds 1 to 1000 items'),
  batchNotFound: def(4103, 404, 'Batch not found'),
  beneficiaryVerified: def(2000, 200, 'Beneficiary verified'),
} as const;

export const CollectionCodes = {
  initiated: def(2000, 200, 'Collection request created successfully'),
  fetched: def(2000, 200, 'Transaction status fetched successfully'),
  simulated: def(2000, 200, 'Collection outcome simulated'),
  neitherIdentifier: def(4000, 400, 'Either txnId or senderId is required'),
  unauthorized: def(4008, 401, 'Token invalid or expired'),
  bothIdentifiers: def(4103, 400, 'Give only one of txnId and senderId'),
  notFound: def(4104, 404, 'Transaction not found'),
  malformedTxnId: def(4105, 400, 'Missing or malformed txnId'),
  otherMerchant: def(4107, 403, 'Transaction does not belong to this merchant'),
  undecryptable: def(4014, 400, 'Payload could not be decrypted'),
  invalidAmount: def(4110, 400, 'Invalid amount: must be between 1.00 and 100000.00 with at most two decimals'),
  invalidField: def(4111, 400, 'Invalid field'),
  duplicateSenderId: def(4112, 409, 'Duplicate senderId'),
  commercialsMissing: def(4015, 422, 'Commercials are not yet configured and activated'),
  transitionNotAllowed: def(4113, 409, 'The collection cannot move to that status'),
  /** Routed to the upstream connector, which did not create the collection now (HTTP 503, like a bank down). */
  upstreamUnavailable: def(
    4014,
    503,
    'Collections are temporarily unavailable: the upstream provider did not create the collection; try again',
  ),
} as const;

/**
 * Settlements of collections to the merchant's bank account (docs/merchant/settlements.md): payout-style envelopes,
 * codes per operation as the provider's interface has them (4016 here is the provider's "No active settlement
 * account found"; on payout initiation 4016 keeps its meaning there).
 */
export const SettlementCodes = {
  initiated: def(2000, 200, 'Settlement initiated successfully'),
  fetched: def(2000, 200, 'Settlement fetched successfully'),
  historyFetched: def(2000, 200, 'Settlements fetched successfully'),
  unauthorized: def(4001, 401, 'Invalid or expired token'),
  nothingToSettle: def(4002, 422, 'Nothing to settle: no settleable collections within the available balance'),
  invalidAmount: def(4004, 400, 'Invalid amount format'),
  undecryptable: def(4014, 400, 'Payload could not be decrypted'),
  noSettlementAccount: def(4016, 422, 'No active settlement account found'),
  invalidField: def(4017, 400, 'Invalid field'),
  settlementIdMissing: def(4101, 400, 'settlement_id is required'),
  notFound: def(4103, 404, 'Settlement not found'),
  otherMerchant: def(4107, 403, 'Settlement does not belong to this merchant'),
  walletIdMissing: def(4201, 400, 'wallet_id is required'),
  walletNotFound: def(4202, 404, 'Wallet not found'),
} as const;

/** A CodeDef with a more specific message (for example one that names the offending field). */
export function withMessage(base: CodeDef, message: string): CodeDef {
  return { code: base.code, http: base.http, message };
}
