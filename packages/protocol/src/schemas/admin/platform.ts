import { integer, rupeesText, text } from '../common.ts';

/**
 * The platform's own books (docs/operator/charging-merchants.md, "Platform wallets and fee reports"): its wallets
 * and the fees and GST it earned, by IST day, merchant or product.
 */

/** The platform's wallets: fee income, GST payable, recovery (liens enforced, differences written off). */
export const PLATFORM_WALLET_KINDS = ['fees', 'gst', 'recovery'] as const;

export const platformWalletList = {
  type: 'object',
  required: ['wallets'],
  properties: {
    wallets: {
      type: 'array',
      items: {
        type: 'object',
        required: ['kind', 'wallet_id', 'balance'],
        properties: {
          kind: { type: 'string', enum: PLATFORM_WALLET_KINDS },
          wallet_id: text,
          balance: rupeesText,
        },
      },
    },
    suspense: {
      type: 'object',
      description:
        'The suspense wallet PW_SUSPENSE: deposits credited nowhere on their way back to their senders (return_to_sender); not one of the commercial wallets above',
      required: ['wallet_id', 'balance'],
      properties: { wallet_id: text, balance: rupeesText },
    },
  },
} as const;

/** How the fee report groups: by IST day, by merchant_id, by product (IMPS, NEFT, RTGS, UPI_COLLECTION). */
export const FEE_REPORT_GROUPS = ['day', 'merchant', 'product'] as const;

const istDate = { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' } as const;

export const platformFeesQuery = {
  type: 'object',
  properties: {
    from: { ...istDate, description: 'First IST day (YYYY-MM-DD), inclusive; default: the first day of `to`’s month' },
    to: { ...istDate, description: 'Last IST day (YYYY-MM-DD), inclusive; default: today (IST). At most 366 days' },
    group: { type: 'string', enum: FEE_REPORT_GROUPS, description: 'default: day' },
    merchant_id: { type: 'string', maxLength: 40, description: 'Only this merchant’s fees' },
    format: { type: 'string', enum: ['json', 'csv'] },
  },
} as const;

const feeFigures = {
  count: {
    ...integer,
    description:
      'Transactions charged a fee, less those whose fee was refunded (both counted on the day they happened)',
  },
  fees: { ...rupeesText, description: 'Fees earned, net of fees refunded' },
  tax: { ...rupeesText, description: 'GST collected on them, net of GST refunded' },
} as const;

export const platformFeeReport = {
  type: 'object',
  required: ['from', 'to', 'group', 'rows', 'total'],
  properties: {
    from: istDate,
    to: istDate,
    group: { type: 'string', enum: FEE_REPORT_GROUPS },
    rows: {
      type: 'array',
      description: 'group=day: every day of the window, oldest first (zeros included); else one row per key that moved',
      items: {
        type: 'object',
        required: ['key', 'count', 'fees', 'tax'],
        properties: {
          key: { ...text, description: 'The IST day (YYYY-MM-DD), the merchant_id, or the product' },
          ...feeFigures,
        },
      },
    },
    total: { type: 'object', required: ['count', 'fees', 'tax'], properties: feeFigures },
  },
} as const;
