import {
  bool,
  dateTime,
  idParams,
  integer,
  nullableDateTime,
  nullableInteger,
  nullableText,
  pageQueryProperties,
  pageSchema,
  rupeesText,
  text,
} from '../common.ts';

/** Reconciliation of bank statements: imports, runs and their items. */

/** A result's items in the run: how many, their amount, and how many of them are open exceptions still. */
const reconTotal = { type: 'object', properties: { count: integer, amount: rupeesText, open: integer } } as const;

const statementBalance = {
  type: 'object',
  properties: { type: text, balance: rupeesText, date: nullableText },
} as const;

export const reconRunView = {
  type: 'object',
  properties: {
    run_id: text,
    statement: {
      type: 'object',
      properties: {
        statement_id: text,
        account: text,
        format: { type: 'string', enum: ['camt.053', 'mt940'] },
        version: text,
        sha256: text,
        currency: nullableText,
        period_from: nullableText,
        period_to: nullableText,
        opening: statementBalance,
        closing: statementBalance,
        credits: rupeesText,
        debits: rupeesText,
        forward_value: rupeesText,
        entries: integer,
        ignored_entries: integer,
        imported_by: text,
        imported_at: dateTime,
      },
    },
    transactions: integer,
    results: {
      type: 'object',
      description:
        'Per result (matched, amount_mismatch, unmatched, missing, paid_but_refunded, return_not_applied): count, amount and open (exceptions not closed yet; 0 for matched)',
      additionalProperties: reconTotal,
    },
    forward_value_items: integer,
    open_exceptions: integer,
    created_by: text,
    created_at: dateTime,
  },
} as const;

export const reconItemView = {
  type: 'object',
  properties: {
    item_id: text,
    result: text,
    state: { type: 'string', enum: ['matched', 'open', 'closed'] },
    entry_index: nullableInteger,
    tx_index: nullableInteger,
    direction: { type: ['string', 'null'], enum: ['credit', 'debit', null] },
    amount: { type: ['string', 'null'] },
    currency: nullableText,
    booking_date: nullableText,
    value_date: nullableText,
    forward_value: bool,
    end_to_end_id: nullableText,
    utr: nullableText,
    bank_reference: nullableText,
    return_reason: nullableText,
    remittance: nullableText,
    matched_kind: nullableText,
    payout_id: nullableText,
    collection_id: nullableText,
    deposit_id: nullableText,
    wallet_id: nullableText,
    wallet_credit_id: nullableText,
    payrail_amount: { type: ['string', 'null'] },
    note: nullableText,
    closed_by: nullableText,
    closed_reason: nullableText,
    closed_at: nullableDateTime,
  },
} as const;

export const reconImported = {
  type: 'object',
  properties: {
    runs: {
      type: 'array',
      items: {
        type: 'object',
        properties: { ...reconRunView.properties, already_imported: bool },
      },
    },
  },
} as const;

export const reconRunPage = pageSchema(reconRunView);

export const reconRunDetail = {
  type: 'object',
  properties: { ...reconRunView.properties, items: { type: 'array', items: reconItemView } },
} as const;

export const reconRunQuery = {
  type: 'object',
  properties: { ...pageQueryProperties },
} as const;

export const reconRunIdParam = idParams('run_id', { type: 'string', maxLength: 40 });

export const reconRunDetailQuery = {
  type: 'object',
  properties: { format: { type: 'string', enum: ['json', 'csv'] } },
} as const;

export const reconCloseParams = {
  type: 'object',
  required: ['run_id', 'item_id'],
  properties: {
    run_id: { type: 'string', maxLength: 40 },
    item_id: { type: 'string', pattern: '^[0-9]{1,18}$' },
  },
} as const;

export const reconCloseBody = {
  type: 'object',
  required: ['reason'],
  additionalProperties: false,
  properties: { reason: { type: 'string', minLength: 1, maxLength: 1000 } },
} as const;
