import { PAYOUT_STATUSES } from '../../wire.ts';
import {
  bool,
  createdRangeQuery,
  dateTime,
  integer,
  nullableDateTime,
  nullableText,
  pageQueryProperties,
  pageSchema,
  rupeesText,
  text,
} from '../common.ts';
import { SCHEME_NAMES } from './schemeNames.ts';

/** Bulk payout batches as the operator and the merchant console read them. */

export const batchView = {
  type: 'object',
  properties: {
    merchant_id: text,
    batch_id: text,
    atomic: bool,
    callback_url: nullableText,
    scheme: { type: 'string', enum: SCHEME_NAMES },
    item_count: integer,
    accepted: integer,
    refused: integer,
    amount_accepted: rupeesText,
    open_items: integer,
    created_at: dateTime,
    completed_at: nullableDateTime,
    merchant_name: { type: ['string', 'null'], description: 'Operator lists: the merchant’s name' },
  },
} as const;

export const batchDetail = {
  type: 'object',
  properties: {
    ...batchView.properties,
    by_status: { type: 'object', additionalProperties: { type: 'integer' } },
    items: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          index: integer,
          sender_id: text,
          resp_code: integer,
          resp_message: text,
          transaction_id: nullableText,
          status: { type: ['string', 'null'], enum: [...PAYOUT_STATUSES, null] },
          status_message: nullableText,
          utr_number: nullableText,
        },
      },
    },
  },
} as const;

export const batchListQuery = {
  type: 'object',
  properties: {
    merchant_id: { type: 'string' },
    ...pageQueryProperties,
    // The batch cursor carries time, merchant and batch id: longer than the other lists' cursors.
    cursor: { type: 'string', maxLength: 400 },
    ...createdRangeQuery,
  },
} as const;

export const batchParams = {
  type: 'object',
  required: ['merchant_id', 'batch_id'],
  properties: { merchant_id: { type: 'string' }, batch_id: { type: 'string' } },
} as const;

export const batchPage = pageSchema(batchView);
