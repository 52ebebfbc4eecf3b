/**
 * Decrypted `data` shapes and plaintext requests of the merchant API, exactly as they cross the wire. Each is the
 * type of its JSON Schema (wireSchemas.ts, through FromSchema), so the fields are written once: a field added to,
 * renamed in or made optional in a schema changes its type here and every file that builds or reads it.
 *
 * Four types say more than their schema can (each said below, and tied to its schema in schemas/wireTies.ts):
 * PayoutInitiateRequestWire and CollectionInitiateRequestWire take wider values than the schema documents,
 * BulkRequestWire's items are the `$ref` its schema names, and BulkStatusWire always carries the page its schema
 * leaves optional for the webhook.
 */
import type { FromSchema } from './jsonSchema.ts';
import type { WIRE_SCHEMAS } from './wireSchemas.ts';

export * from './wireVocabulary.ts';

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The type of a plaintext's JSON Schema. */
type Of<K extends keyof typeof WIRE_SCHEMAS> = FromSchema<(typeof WIRE_SCHEMAS)[K]>;

/** `T` with the types of some of its fields replaced (each key of `W` must be one of `T`'s). */
type With<T, W extends { [K in keyof W]: K extends keyof T ? unknown : never }> = Simplify<Omit<T, keyof W> & W>;

export type PayoutTransactionWire = Of<'PayoutTransaction'>;

export type BalanceWire = Of<'Balance'>;

export type CollectionTransactionWire = Of<'CollectionTransaction'>;

/** Plaintext of POST /collection/v1/status: exactly one of the two. */
export type CollectionStatusRequestWire = Of<'CollectionStatusRequest'>;

type PayoutInitiateSchema = Of<'PayoutInitiateRequest'>;

/**
 * Plaintext of a payout initiation, nested shape; the flat shape carries the beneficiary fields at top level (the
 * schema shows the nested one only). `payment_mode` is any text: the server answers one it does not know with a
 * code, not a schema error.
 */
export type PayoutInitiateRequestWire = Simplify<
  With<PayoutInitiateSchema, { payment_mode: string }> & Partial<NonNullable<PayoutInitiateSchema['beneficiary']>>
>;

/**
 * Plaintext of POST /collection/v1/initiate. `requestAmount` (and its alias `amount`: when both are given they must
 * be equal) is decimal text with two fraction digits, as the schema documents; a JSON number is accepted too.
 */
export type CollectionInitiateRequestWire = With<
  Of<'CollectionInitiateRequest'>,
  { requestAmount?: string | number; amount?: string | number }
>;

/** Body of a webhook delivery; `data` is the transaction object encrypted with the transaction's scheme. */
export type WebhookEventWire = Of<'WebhookEvent'>;

/**
 * Plaintext of `payload` of POST /payout/v1/bulk (docs/merchant/bulk-and-verification.md); each item is a payout
 * initiation's plaintext (the schema's `$ref`, which FromSchema does not follow).
 */
export type BulkRequestWire = With<Of<'BulkPayoutRequest'>, { items: PayoutInitiateRequestWire[] }>;

/** Decrypted `data` of POST /payout/v1/bulk (also of its 4018 and 4009 answers). */
export type BulkResultWire = Of<'BulkPayoutResult'>;

/** One item's verdict: 2000 with the payout it created, or the code a single initiation would have got. */
export type BulkItemVerdictWire = BulkResultWire['items'][number];

export type BulkSummaryWire = BulkResultWire['summary'];

type BulkStatusSchema = Of<'BulkPayoutStatus'>;

/**
 * Decrypted `data` of GET /payout/v1/bulk/status: the summary by status and one page of items. The schema is also
 * the `data` of payout.batch.completed, which has no page: the route's answer always has one.
 */
export type BulkStatusWire = Simplify<
  BulkStatusSchema & Required<Pick<BulkStatusSchema, 'items' | 'has_more' | 'next_cursor'>>
>;

/** Plaintext of `payload` of POST /payout/v1/beneficiary/verify (docs/merchant/bulk-and-verification.md). */
export type BeneficiaryVerifyRequestWire = Of<'BeneficiaryVerifyRequest'>;

/** Decrypted `data` of POST /payout/v1/beneficiary/verify. */
export type BeneficiaryVerificationWire = Of<'BeneficiaryVerification'>;

/** Plaintext of `payload` of POST /settlement/v1/initiate (docs/merchant/settlements.md). */
export type SettlementInitiateRequestWire = With<Of<'SettlementInitiateRequest'>, { amount?: string | number }>;

/** Decrypted `data` of the settlement routes and of the settlement.* webhooks (these without `collections`). */
export type SettlementWire = Of<'Settlement'>;

/** Decrypted `data` of GET /settlement/v1/history (the schema's `$ref`, which FromSchema does not follow). */
export type SettlementHistoryWire = { settlements: SettlementWire[] };
