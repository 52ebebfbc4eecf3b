import { bool, integer, rupeesText, text } from '../common.ts';

/**
 * The ledger check: every wallet's balance (the merchants' and the platform's) against the sum of its entries, and
 * every double-entry kind (the fees and their GST, both ways) summing to zero over all wallets.
 */

export const ledgerVerifyQuery = {
  type: 'object',
  properties: {
    full: {
      type: 'string',
      enum: ['true', 'false'],
      description:
        'true: add up every entry of the ledger. Default false: start from the days the worker has closed (each wallet’s balance and each kind’s total at the end of each UTC day, summed from the entries when the day was closed) and add the entries after them',
    },
  },
} as const;

export const ledgerVerification = {
  type: 'object',
  properties: {
    ok: { ...bool, description: 'No mismatch and no unbalanced kind' },
    wallets_checked: { ...integer, description: 'Every wallet, the platform’s included' },
    platform_wallets_checked: { ...integer, description: 'Of which the platform’s (fees, gst, recovery)' },
    mismatches: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          wallet_id: text,
          balance: { type: ['string', 'integer'] },
          ledger_sum: { type: ['string', 'integer'] },
        },
      },
    },
    unbalanced_kinds: {
      type: 'array',
      description:
        'Double-entry kinds whose entries do not sum to zero over all wallets (the platform’s side and the merchants’ disagree); should always be empty',
      items: {
        type: 'object',
        required: ['kind', 'sum'],
        properties: { kind: text, sum: { ...rupeesText, description: 'The sum over every wallet (rupees)' } },
      },
    },
  },
} as const;
