import { bool, dateTime, idParams, rupeesText, text } from '../common.ts';

/** Wallets: one wallet, a new one, and a credit to it. */

/** Rupees as decimal text with at most two fraction digits (a JSON number is accepted too). */
export const amountInput = {
  anyOf: [
    { type: 'string', pattern: '^[0-9]+(\\.[0-9]{1,2})?$' },
    { type: 'number', exclusiveMinimum: 0 },
  ],
  description: 'Rupees as decimal text with at most two fraction digits (a JSON number is accepted too)',
} as const;

export const walletIdParam = idParams('wallet_id', { type: 'string' });

/** A wallet's virtual account (docs/merchant/funding-a-wallet.md); absent in live mode until PAYRAIL_VA_IFSC is set. */
export const virtualAccountView = {
  type: 'object',
  required: ['number', 'ifsc'],
  properties: {
    number: { type: 'string', description: 'PAYRAIL_VA_PREFIX, ten digits of the wallet, a Luhn check digit' },
    ifsc: { type: 'string', description: 'PAYRAIL_VA_IFSC (SBOX0VA0001 in sandbox unless set)' },
  },
} as const;

export const walletView = {
  type: 'object',
  required: ['wallet_id', 'balance', 'currency', 'created_at', 'updated_at'],
  properties: {
    wallet_id: text,
    balance: rupeesText,
    on_hold: { ...rupeesText, description: 'Sum of the payouts not yet final (GET /admin/v1/wallets/{wallet_id})' },
    available_balance: {
      ...rupeesText,
      description: 'Balance minus active liens: what can be spent (GET /admin/v1/wallets/{wallet_id})',
    },
    on_lien: { ...rupeesText, description: 'Sum of the active liens (GET /admin/v1/wallets/{wallet_id})' },
    currency: { type: 'string', const: 'INR' },
    created_at: dateTime,
    updated_at: dateTime,
    merchant_id: { type: 'string', description: 'GET /admin/v1/wallets/{wallet_id} only' },
    virtual_account: virtualAccountView,
  },
} as const;

export const walletCreated = { type: 'object', properties: { wallet_id: text } } as const;

export const walletCreditBody = {
  type: 'object',
  required: ['amount'],
  additionalProperties: false,
  properties: { amount: amountInput, reference: { type: 'string', minLength: 1, maxLength: 100 } },
} as const;

export const walletCredited = {
  type: 'object',
  properties: { wallet_id: text, balance: rupeesText, duplicate: bool },
} as const;
