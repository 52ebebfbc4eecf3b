import { dateTime, nullableDateTime, nullableText, rupeesText, text } from '../common.ts';

/** Wallet statements (JSON; `format=csv` answers CSV with the same columns, `format=jsonl` JSON lines). */

export const statementQuery = {
  type: 'object',
  properties: {
    from: { type: 'string', maxLength: 40, description: 'ISO date-time, or YYYY-MM-DD (start of that day, IST)' },
    to: {
      type: 'string',
      maxLength: 40,
      description: 'ISO date-time (exclusive), or YYYY-MM-DD (end of that day, IST)',
    },
    format: {
      type: 'string',
      enum: ['json', 'csv', 'jsonl'],
      description:
        'json: one document of at most 20,000 entries (a longer range is 400 invalid_request); csv (text/csv) and jsonl (JSON lines, application/x-ndjson): streamed, any number of entries',
    },
  },
} as const;

/** A wallet statement as JSON (`format=csv` answers text/csv with the same columns). */
export const statementView = {
  type: 'object',
  properties: {
    wallet_id: text,
    currency: { type: 'string', const: 'INR' },
    from: nullableDateTime,
    to: nullableDateTime,
    opening_balance: rupeesText,
    total_credits: rupeesText,
    total_debits: rupeesText,
    closing_balance: rupeesText,
    entries: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          entry_id: text,
          created_at: dateTime,
          kind: {
            ...text,
            description:
              'credit, payout_debit, payout_refund, collection_credit; payout_fee, payout_fee_gst and their refunds payout_fee_refund, payout_fee_gst_refund; collection_fee, collection_fee_gst; deposit, deposit_fee, deposit_fee_gst (docs/merchant/funding-a-wallet.md)',
          },
          description: { ...text, description: 'The kind in words; payout_id or collection_id says which one' },
          amount: rupeesText,
          balance: rupeesText,
          reference: nullableText,
          payout_id: nullableText,
          collection_id: nullableText,
          sender_id: {
            type: ['string', 'null'],
            description: "The merchant's own sender_id of that payout or collection (null for other entries)",
          },
        },
      },
    },
  },
} as const;
