import { bool, dateTime, nullableText, pageQueryProperties, pageSchema, rupeesText, text } from '../common.ts';
import { amountInput } from './wallets.ts';

/** Deposits: bank credits to a wallet's virtual account (docs/merchant/funding-a-wallet.md). */

const depositFields = {
  virtual_account: { type: 'string', minLength: 1, maxLength: 40 },
  amount: amountInput,
  utr: { type: 'string', pattern: '^\\s*[0-9A-Za-z]{1,64}\\s*$', description: "The bank's reference: once per UTR" },
  remitter_name: { type: ['string', 'null'], maxLength: 140 },
  remitter_account: { type: ['string', 'null'], maxLength: 34 },
  remitter_ifsc: { type: ['string', 'null'], maxLength: 11 },
} as const;

export const sandboxDepositBody = {
  type: 'object',
  required: ['virtual_account', 'amount', 'utr'],
  additionalProperties: false,
  properties: depositFields,
} as const;

export const pspDepositNotifyBody = {
  type: 'object',
  required: ['virtual_account', 'amount', 'utr'],
  properties: {
    ...depositFields,
    credited_at: { type: ['string', 'null'], description: 'When the bank credited it (ISO 8601); now when absent' },
  },
} as const;

export const depositView = {
  type: 'object',
  required: ['deposit_id', 'merchant_id', 'wallet_id', 'virtual_account', 'amount', 'fees', 'tax', 'utr', 'source'],
  properties: {
    deposit_id: text,
    merchant_id: text,
    wallet_id: text,
    virtual_account: text,
    amount: rupeesText,
    fees: { ...rupeesText, description: "The DEPOSIT rule's fee (0.00 without one)" },
    tax: { ...rupeesText, description: 'GST on the fee' },
    utr: text,
    remitter_name: nullableText,
    remitter_account: nullableText,
    remitter_ifsc: nullableText,
    source: { type: 'string', enum: ['psp_notify', 'sandbox', 'bank_file', 'exception'] },
    exception_id: { type: 'string', description: 'An exception assigned to the wallet by an operator' },
    credited_at: dateTime,
    created_at: dateTime,
    duplicate: { ...bool, description: 'This UTR was credited before: nothing changed' },
  },
} as const;

/** A wallet's deposits, newest first (GET /admin/v1/wallets/{wallet_id}/deposits). */
export const depositPageQuery = { type: 'object', properties: pageQueryProperties } as const;
export const depositPage = pageSchema(depositView);

export const pspDepositAccepted = {
  type: 'object',
  required: ['result'],
  description:
    '`credited` now, `unchanged` (this UTR was credited before), or `refused`: recorded as the exception `exception_id` (an unknown virtual account, a remitter not allowed), nothing credited',
  properties: {
    result: { type: 'string', enum: ['credited', 'unchanged', 'refused'] },
    deposit_id: text,
    wallet_id: text,
    exception_id: text,
    reason: text,
  },
} as const;

export const allowedRemittersBody = {
  type: 'object',
  required: ['accounts'],
  additionalProperties: false,
  properties: {
    accounts: {
      type: 'array',
      maxItems: 1000,
      items: {
        type: 'object',
        required: ['account_number', 'ifsc'],
        additionalProperties: false,
        properties: {
          account_number: { type: 'string', pattern: '^[0-9A-Za-z]{1,34}$' },
          ifsc: { type: 'string', pattern: '^[A-Za-z]{4}0[A-Za-z0-9]{6}$' },
        },
      },
    },
  },
} as const;

export const allowedRemittersView = {
  type: 'object',
  required: ['merchant_id', 'accounts'],
  properties: {
    merchant_id: text,
    accounts: {
      type: 'array',
      items: {
        type: 'object',
        required: ['account_number', 'ifsc'],
        properties: { account_number: text, ifsc: text },
      },
    },
  },
} as const;
