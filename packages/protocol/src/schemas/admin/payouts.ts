import { PAYOUT_STATUSES } from '../../wire.ts';
import { WIRE_SCHEMAS } from '../../wireSchemas.ts';
import { createdRangeQuery, nullableDateTime, nullableText, pageQueryProperties, pageSchema, text } from '../common.ts';
import { deliverySummary } from './deliveries.ts';
import { SCHEME_NAMES } from './schemeNames.ts';
import { timelineEvent } from './timeline.ts';

/** Payouts as the operator and the merchant console read them, and the operator resolving or returning one. */

export const transactionIdParam = { type: 'object', properties: { transaction_id: { type: 'string' } } } as const;

/** A payout as the operator and the merchant console see it: the merchant's wire object and the rail's side. */
export const adminPayoutView = {
  type: 'object',
  properties: {
    ...WIRE_SCHEMAS.PayoutTransaction.properties,
    merchant_id: {
      type: ['string', 'null'],
      description: 'The merchant whose payout it is; null for the platform’s own (a deposit returned to its sender)',
    },
    exception_id: {
      type: ['string', 'null'],
      description: 'A return to sender: the exception whose deposit it pays back (the platform’s payout)',
    },
    scheme: { type: 'string', enum: SCHEME_NAMES },
    rail: text,
    connector: { type: 'string', description: 'The connector chosen at initiation; `rail` is its older name' },
    rail_reference: nullableText,
    rail_error: nullableText,
    failure_reason: nullableText,
    returned_at: nullableDateTime,
    return_reason: nullableText,
    utr_invented: {
      type: 'boolean',
      description:
        'True when utr_number is not the bank’s: an operator resolved the payout SUCCESS without a UTR and Payrail made one up',
    },
    merchant_name: { type: ['string', 'null'], description: 'Operator lists: the merchant’s name' },
  },
} as const;

export const payoutListQuery = {
  type: 'object',
  properties: {
    merchant_id: { type: 'string' },
    status: { type: 'string', enum: PAYOUT_STATUSES },
    ...pageQueryProperties,
    ...createdRangeQuery,
  },
} as const;

export const payoutPage = pageSchema(adminPayoutView);

export const payoutTimeline = {
  type: 'object',
  properties: {
    transaction_id: text,
    events: { type: 'array', items: timelineEvent },
    deliveries: deliverySummary,
  },
} as const;

export const payoutResolveBody = {
  type: 'object',
  required: ['status'],
  additionalProperties: false,
  properties: {
    status: { type: 'string', enum: ['SUCCESS', 'FAILED'] },
    utr_number: { type: 'string', minLength: 1, maxLength: 40 },
  },
} as const;

export const payoutReturnBody = {
  type: 'object',
  required: ['reason'],
  additionalProperties: false,
  properties: {
    reason: {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      pattern: '^[^\\u0000-\\u001f\\u007f]*\\S[^\\u0000-\\u001f\\u007f]*$',
      description: 'Why the bank returned it, as the merchant will read it: 1–255 characters, one line',
    },
  },
} as const;
