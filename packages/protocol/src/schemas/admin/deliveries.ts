import {
  dateTime,
  integer,
  nullableDateTime,
  nullableInteger,
  nullableText,
  pageQueryProperties,
  pageSchema,
  text,
} from '../common.ts';

/** Webhook deliveries: pages of them with their attempts, a transaction's, and replays. */

export const DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;

/** The webhook deliveries of one transaction, oldest first. */
export const deliverySummary = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      type: { type: 'string' },
      state: { type: 'string', enum: DELIVERY_STATES },
      attempt_count: { type: 'integer' },
      next_attempt_at: { type: ['string', 'null'] },
      last_status: { type: ['integer', 'null'] },
      last_error: { type: ['string', 'null'] },
      waiting_behind: {
        type: ['string', 'null'],
        description: 'the earlier, still pending delivery of this transaction this one waits for',
      },
    },
  },
} as const;

export const deliveryView = {
  type: 'object',
  properties: {
    id: text,
    merchant_id: text,
    subject_id: text,
    type: text,
    url: text,
    state: { type: 'string', enum: DELIVERY_STATES },
    attempt_count: integer,
    next_attempt_at: nullableDateTime,
    last_status: nullableInteger,
    last_error: nullableText,
    created_at: dateTime,
    delivered_at: nullableDateTime,
    attempts: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          attempted_at: dateTime,
          duration_ms: integer,
          http_status: nullableInteger,
          error: nullableText,
        },
      },
    },
  },
} as const;

export const deliveryListQuery = {
  type: 'object',
  properties: {
    merchant_id: { type: 'string' },
    state: { type: 'string', enum: DELIVERY_STATES },
    subject_id: { type: 'string', description: 'transaction_id or txnId' },
    ...pageQueryProperties,
  },
} as const;

export const deliveryPage = pageSchema(deliveryView);

export const deliveryIdParam = { type: 'object', properties: { id: { type: 'string' } } } as const;

export const deliveryReplayed = { type: 'object', properties: { id: text, state: text } } as const;

export const replayFailedBody = {
  type: 'object',
  required: ['merchant_id', 'since'],
  additionalProperties: false,
  properties: {
    merchant_id: { type: 'string', minLength: 1, maxLength: 40 },
    since: { type: 'string', maxLength: 40, description: 'ISO date-time' },
  },
} as const;

export const failedReplayed = {
  type: 'object',
  properties: { replayed: integer, ids: { type: 'array', items: text } },
} as const;
