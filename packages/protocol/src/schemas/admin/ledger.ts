import { bool, integer, text } from '../common.ts';

/** The ledger check: every wallet's balance against the sum of its entries. */

export const ledgerVerification = {
  type: 'object',
  properties: {
    ok: bool,
    wallets_checked: integer,
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
  },
} as const;
