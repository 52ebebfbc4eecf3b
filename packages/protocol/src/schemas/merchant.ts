import {
  Common,
  CollectionCodes,
  PayoutCodes,
  SettlementCodes,
  TokenCodes,
  withMessage,
  type CodeDef,
} from '../codes.ts';
import type { EnvelopeStyle } from '../envelope.ts';

/**
 * The merchant API's request and answer shapes. Requests and answers are envelopes: the request plaintext is
 * encrypted in `payload` and the answer's in `data` (their plaintexts are WIRE_SCHEMAS, named in each route's
 * description), so the 200 schema here is the envelope and the codes of every other status come from the code
 * tables of codes.ts.
 */

/** The longest apiKey or secretKey the token routes read (longer is 4001 without a lookup). */
export const MAX_CREDENTIAL_CHARS = 128;
/** The longest V1 `payload` the V1 token route decrypts. */
export const MAX_V1_PAYLOAD_CHARS = 4096;

/** A bulk request carries up to 1,000 items: its own body limit (docs/merchant/bulk-and-verification.md). */
export const BULK_BODY_TOO_LARGE = withMessage(Common.bodyTooLarge, 'Request body exceeds 2 MiB');

export const encryptedBody = {
  type: 'object',
  properties: {
    payload: { type: 'string', description: 'The request plaintext (JSON) encrypted with the session scheme' },
  },
} as const;

export function payoutEnvelope<const D extends string>(description: D) {
  return {
    description,
    type: 'object',
    required: ['resp_code', 'resp_message'],
    properties: {
      resp_code: { type: 'integer' },
      resp_message: { type: 'string' },
      data: { type: 'string', description: 'Encrypted JSON (session scheme)' },
    },
  } as const;
}

export function collectionEnvelope<const D extends string>(description: D) {
  return {
    description,
    type: 'object',
    required: ['respCode', 'respMessage'],
    properties: {
      respCode: { type: 'integer' },
      respMessage: { type: 'string' },
      data: { type: 'string', description: 'Encrypted JSON (session scheme)' },
    },
  } as const;
}

/** The envelope schema of a style. */
export const envelopeOf = (style: EnvelopeStyle, description: string) =>
  style === 'payout' ? payoutEnvelope(description) : collectionEnvelope(description);

/**
 * The error answers of a merchant route, one schema per HTTP status, each description naming exactly the codes
 * of `defs` with that status (`notes` adds a sentence to a status, e.g. what `data` carries). The OpenAPI
 * document's code lists are these: nothing writes a code number by hand.
 */
export function codeResponses(
  style: EnvelopeStyle,
  defs: readonly CodeDef[],
  notes: Readonly<Record<number, string>> = {},
): Record<number, ReturnType<typeof envelopeOf>> {
  const byStatus = new Map<number, CodeDef[]>();
  for (const def of defs) byStatus.set(def.http, [...(byStatus.get(def.http) ?? []), def]);
  const out: Record<number, ReturnType<typeof envelopeOf>> = {};
  for (const [http, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const text = list.map((d) => `${d.code}: ${d.message}`).join('; ');
    out[http] = envelopeOf(style, notes[http] ? `${text}. ${notes[http]}` : text);
  }
  return out;
}

/** The codes each merchant route answers besides its 2000 (the common 4000, 413, 4290 and 5000 aside). */
export const MERCHANT_ROUTE_CODES = {
  'POST /payout/v1/initiate': [
    PayoutCodes.invalidBeneficiary,
    PayoutCodes.invalidAmount,
    PayoutCodes.amountBelowMinimum,
    PayoutCodes.amountAboveMaximum,
    PayoutCodes.invalidIfsc,
    PayoutCodes.invalidAccountNumber,
    PayoutCodes.invalidPaymentMode,
    PayoutCodes.undecryptable,
    PayoutCodes.invalidWallet,
    PayoutCodes.invalidField,
    PayoutCodes.unauthorized,
    PayoutCodes.duplicateSenderId,
    PayoutCodes.insufficientBalance,
    PayoutCodes.dailyLimitExceeded,
    PayoutCodes.monthlyLimitExceeded,
    PayoutCodes.beneficiaryVerificationFailed,
    PayoutCodes.bankNotAllowed,
    PayoutCodes.bankDown,
  ],
  'GET /payout/v1/status': [
    PayoutCodes.neitherIdentifier,
    PayoutCodes.bothIdentifiers,
    PayoutCodes.unauthorized,
    PayoutCodes.transactionNotFound,
    Common.rateLimited,
  ],
  'GET /payout/v1/balance': [PayoutCodes.walletIdMissing, PayoutCodes.unauthorized, PayoutCodes.walletNotFound],
  'POST /payout/v1/bulk': [
    PayoutCodes.undecryptable,
    PayoutCodes.invalidField,
    PayoutCodes.batchSize,
    PayoutCodes.unauthorized,
    PayoutCodes.duplicateBatchId,
    BULK_BODY_TOO_LARGE,
    PayoutCodes.batchRefused,
  ],
  'GET /payout/v1/bulk/status': [
    PayoutCodes.invalidField,
    PayoutCodes.unauthorized,
    PayoutCodes.batchNotFound,
    Common.rateLimited,
  ],
  'POST /payout/v1/beneficiary/verify': [
    PayoutCodes.invalidBeneficiary,
    PayoutCodes.invalidIfsc,
    PayoutCodes.invalidAccountNumber,
    PayoutCodes.undecryptable,
    PayoutCodes.unauthorized,
    PayoutCodes.beneficiaryVerificationFailed,
  ],
  'POST /collection/v1/initiate': [
    CollectionCodes.undecryptable,
    CollectionCodes.invalidAmount,
    CollectionCodes.invalidField,
    CollectionCodes.unauthorized,
    CollectionCodes.duplicateSenderId,
    CollectionCodes.upstreamUnavailable,
  ],
  'GET /collection/v1/status': [
    CollectionCodes.neitherIdentifier,
    CollectionCodes.bothIdentifiers,
    CollectionCodes.malformedTxnId,
    CollectionCodes.unauthorized,
    CollectionCodes.otherMerchant,
    CollectionCodes.notFound,
    Common.rateLimited,
  ],
  'POST /collection/v1/status': [
    CollectionCodes.undecryptable,
    CollectionCodes.neitherIdentifier,
    CollectionCodes.bothIdentifiers,
    CollectionCodes.malformedTxnId,
    CollectionCodes.unauthorized,
    CollectionCodes.otherMerchant,
    CollectionCodes.notFound,
    Common.rateLimited,
  ],
  'GET /collection/v1/qr': [CollectionCodes.malformedTxnId, CollectionCodes.unauthorized, CollectionCodes.notFound],
  'POST /sandbox/v1/collections/:txnId/simulate': [
    CollectionCodes.malformedTxnId,
    CollectionCodes.invalidField,
    CollectionCodes.unauthorized,
    CollectionCodes.notFound,
    CollectionCodes.transitionNotAllowed,
  ],
  'POST /settlement/v1/initiate': [
    SettlementCodes.undecryptable,
    SettlementCodes.walletIdMissing,
    SettlementCodes.invalidAmount,
    SettlementCodes.unauthorized,
    SettlementCodes.walletNotFound,
    SettlementCodes.nothingToSettle,
    SettlementCodes.noSettlementAccount,
  ],
  'GET /settlement/v1/status': [
    SettlementCodes.settlementIdMissing,
    SettlementCodes.unauthorized,
    SettlementCodes.otherMerchant,
    SettlementCodes.notFound,
    Common.rateLimited,
  ],
  'GET /settlement/v1/history': [SettlementCodes.invalidField, SettlementCodes.unauthorized],
  'POST /v1/auth/client-token': [TokenCodes.unauthorized, TokenCodes.tooManyFailures],
  'POST /v1/auth/clients/token': [TokenCodes.unauthorized, TokenCodes.tooManyFailures],
} as const satisfies Record<string, readonly CodeDef[]>;

export type MerchantRouteKey = keyof typeof MERCHANT_ROUTE_CODES;

/** Notes the OpenAPI document adds to some statuses of a route (what `data` carries). */
export const MERCHANT_ROUTE_NOTES: Partial<Record<MerchantRouteKey, Record<number, string>>> = {
  'POST /payout/v1/initiate': { 409: 'data = the existing PayoutTransaction' },
  'POST /payout/v1/bulk': {
    409: 'data = the existing batch as BulkPayoutResult',
    422: 'Nothing recorded; data = BulkPayoutResult',
  },
  'POST /payout/v1/beneficiary/verify': { 422: 'Verification not available (the bank connector cannot verify)' },
  'POST /collection/v1/initiate': {
    409: 'data = the existing collection',
    503: 'Routed upstream: the upstream did not create the collection now (it is FAILED here); try again',
  },
};

/** Error answers of a merchant route as the OpenAPI document shows them. */
export function merchantErrorResponses(route: MerchantRouteKey) {
  const style: EnvelopeStyle = route.includes('/payout/') || route.includes('/settlement/') ? 'payout' : 'collection';
  return codeResponses(style, MERCHANT_ROUTE_CODES[route], MERCHANT_ROUTE_NOTES[route]);
}

// ---- Requests -------------------------------------------------------------------------------------------

const credential = { type: 'string', maxLength: MAX_CREDENTIAL_CHARS } as const;

export const tokenV2Body = {
  type: 'object',
  required: ['apiKey', 'secretKey'],
  properties: { apiKey: credential, secretKey: credential },
} as const;

export const tokenV1Headers = {
  type: 'object',
  properties: {
    'x-api-key': { ...credential, description: 'Optional: the API key, when given it must be the same' },
  },
} as const;

export const tokenV1Body = {
  type: 'object',
  properties: {
    payload: {
      type: 'string',
      maxLength: MAX_V1_PAYLOAD_CHARS,
      description: 'V1-encrypted `{"apiKey","secretKey"}` (the encrypted form)',
    },
    api_key: { ...credential, description: 'Plain form: the API key (with `secret_key`)' },
    secret_key: { ...credential, description: 'Plain form: the secret key (with `api_key`)' },
    apiKey: { ...credential, description: 'Plain form, other spelling: the API key (with `secretKey`)' },
    secretKey: { ...credential, description: 'Plain form, other spelling: the secret key (with `apiKey`)' },
  },
} as const;

export const tokenAnswer = {
  type: 'object',
  properties: {
    respCode: { type: 'integer', const: 2000 },
    respMessage: { type: 'string' },
    data: { type: 'string', description: 'Encrypted `TokenData` (the session scheme: V2 or V1)' },
    expiresIn: { type: 'integer' },
    tokenType: { type: 'string', const: 'Bearer' },
  },
} as const;

export const payoutStatusQuery = {
  type: 'object',
  properties: { transaction_id: { type: 'string' }, sender_id: { type: 'string' } },
} as const;

export const balanceQuery = { type: 'object', properties: { wallet_id: { type: 'string' } } } as const;

export const bulkStatusQuery = {
  type: 'object',
  properties: { batch_id: { type: 'string' }, cursor: { type: 'string' } },
} as const;

export const collectionStatusQuery = {
  type: 'object',
  properties: { txnId: { type: 'string' }, senderId: { type: 'string' } },
} as const;

export const collectionQrQuery = {
  type: 'object',
  properties: { txnId: { type: 'string' }, format: { type: 'string', enum: ['svg', 'png'] } },
} as const;

export const settlementStatusQuery = {
  type: 'object',
  properties: { settlement_id: { type: 'string' } },
} as const;

export const settlementHistoryQuery = {
  type: 'object',
  properties: {
    from: { type: 'string', description: 'IST calendar date YYYY-MM-DD, inclusive (default: 30 days before `to`)' },
    to: { type: 'string', description: 'IST calendar date YYYY-MM-DD, inclusive (default: today)' },
  },
} as const;

export const sandboxSimulateParams = { type: 'object', properties: { txnId: { type: 'string' } } } as const;

export const sandboxSimulateBody = {
  type: 'object',
  required: ['outcome'],
  properties: { outcome: { type: 'string', enum: ['SUCCESS', 'FAILED', 'PENDING'] }, utr: { type: 'string' } },
} as const;
