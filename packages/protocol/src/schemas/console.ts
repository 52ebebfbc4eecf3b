import { COLLECTION_STATUSES, PAYOUT_STATUSES } from '../wire.ts';
import { createdRangeQuery, dateTime, nullableDateTime, pageQueryProperties, rupeesText, text } from './common.ts';
import { batchListQuery } from './admin/batches.ts';
import { DELIVERY_STATES } from './admin/deliveries.ts';
import { settlementAccountBody } from './admin/settlements.ts';
import { statsView } from './admin/stats.ts';

/** The console's own routes (docs/operator/console.md): operator and merchant sessions and the merchant's reads. */

export const SERVER_MODES = ['sandbox', 'live'] as const;

export const modeProperty = {
  type: 'string',
  enum: SERVER_MODES,
  description: 'PAYRAIL_MODE of this server: the console marks every page with it',
} as const;

export const consoleOperator = {
  type: 'object',
  properties: { operator_id: text, email: text, name: text, role: text },
} as const;

export const consoleMerchant = {
  type: 'object',
  properties: { merchant_id: text, name: text, status: text },
} as const;

export const operatorSignInBody = {
  type: 'object',
  required: ['email', 'password'],
  additionalProperties: false,
  properties: {
    email: { type: 'string', minLength: 1, maxLength: 254 },
    password: { type: 'string', minLength: 1, maxLength: 200 },
  },
} as const;

export const operatorSession = {
  type: 'object',
  properties: {
    operator: consoleOperator,
    csrf_token: { type: 'string', description: 'Send as X-CSRF-Token on every state-changing request' },
    expires_at: { type: 'string', description: 'Sign-in only' },
    mode: modeProperty,
  },
} as const;

export const whoami = {
  type: 'object',
  required: ['signed_in', 'mode'],
  properties: {
    signed_in: { type: 'boolean' },
    kind: { type: 'string', enum: ['operator', 'merchant'] },
    operator: consoleOperator,
    merchant: consoleMerchant,
    csrf_token: { type: 'string' },
    mode: modeProperty,
  },
} as const;

export const merchantSignInBody = {
  type: 'object',
  required: ['api_key', 'secret_key'],
  additionalProperties: false,
  properties: {
    api_key: { type: 'string', minLength: 1, maxLength: 64 },
    secret_key: { type: 'string', minLength: 1, maxLength: 64 },
  },
} as const;

export const merchantSession = {
  type: 'object',
  properties: {
    merchant: consoleMerchant,
    csrf_token: { type: 'string', description: 'Send as X-CSRF-Token on every state-changing request' },
    expires_at: { type: 'string', description: 'Sign-in only' },
    mode: modeProperty,
  },
} as const;

export const merchantOverview = {
  type: 'object',
  properties: {
    merchant: consoleMerchant,
    wallets: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          wallet_id: text,
          balance: rupeesText,
          on_hold: rupeesText,
          on_lien: { ...rupeesText, description: "What the operator's liens hold now" },
          available_balance: { ...rupeesText, description: 'Balance minus liens: what can be spent' },
          holds: {
            type: 'array',
            description: 'The liens holding money now, as "On hold by the operator": how much and why (never who)',
            items: {
              type: 'object',
              required: ['amount', 'reason', 'expires_at', 'since'],
              properties: { amount: rupeesText, reason: text, expires_at: nullableDateTime, since: dateTime },
            },
          },
          currency: { type: 'string', const: 'INR' },
          virtual_account: {
            type: 'object',
            description: '"Add money": the account to send money to by bank transfer (absent in live mode until set)',
            required: ['number', 'ifsc', 'name'],
            properties: { number: text, ifsc: text, name: text },
          },
        },
      },
    },
    stats: statsView,
  },
} as const;

/**
 * A list's query: `limit` and `cursor` and the list's own properties, which may replace `cursor`. The return type
 * says that the later property wins, as the spread does: TypeScript types a spread of a generic as an intersection,
 * where a `cursor` of both would be both schemas at once (an impossible one, so an impossible query type).
 */
const pageQuery = <const P extends object>(
  extra: P,
): { readonly type: 'object'; readonly properties: Omit<typeof pageQueryProperties, keyof P> & P } => ({
  type: 'object',
  properties: { ...pageQueryProperties, ...extra },
});

export const consolePayoutQuery = pageQuery({
  status: { type: 'string', enum: PAYOUT_STATUSES },
  ...createdRangeQuery,
});
export const consoleCollectionQuery = pageQuery({
  status: { type: 'string', enum: COLLECTION_STATUSES },
  ...createdRangeQuery,
});
/** The batch cursor carries time, merchant and batch id: the operator's list's (longer than the other lists'). */
export const consoleBatchQuery = pageQuery({ cursor: batchListQuery.properties.cursor, ...createdRangeQuery });
export const consoleDeliveryQuery = pageQuery({ state: { type: 'string', enum: DELIVERY_STATES } });
/** The merchant's own settlements, by wallet and IST days. */
export const consoleSettlementQuery = pageQuery({ wallet_id: { type: 'string', maxLength: 40 }, ...createdRangeQuery });

/**
 * The settlement account as the merchant sets it in the console: the account only. The schedule and the reserve are
 * the operator's (PUT /admin/v1/merchants/{id}/settlement) and stay as they are.
 */
export const consoleSettlementAccountBody = {
  type: 'object',
  required: ['account_number', 'ifsc', 'holder_name'],
  additionalProperties: false,
  properties: {
    account_number: settlementAccountBody.properties.account_number,
    ifsc: settlementAccountBody.properties.ifsc,
    holder_name: settlementAccountBody.properties.holder_name,
  },
} as const;

export const consoleTransactionParam = {
  type: 'object',
  properties: { transaction_id: { type: 'string', maxLength: 40 } },
} as const;
export const consoleTxnIdParam = { type: 'object', properties: { txnId: { type: 'string', maxLength: 40 } } } as const;
export const consoleBatchParam = {
  type: 'object',
  properties: { batch_id: { type: 'string', maxLength: 100 } },
} as const;
export const consoleDeliveryParam = { type: 'object', properties: { id: { type: 'string', maxLength: 40 } } } as const;

export const consoleAssetParams = { type: 'object', properties: { '*': { type: 'string' } } } as const;
