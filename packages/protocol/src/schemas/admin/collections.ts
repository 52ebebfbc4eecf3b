import { COLLECTION_STATUSES } from '../../wire.ts';
import { WIRE_SCHEMAS } from '../../wireSchemas.ts';
import { createdRangeQuery, nullableText, pageQueryProperties, pageSchema, text } from '../common.ts';
import { SCHEME_NAMES } from './schemeNames.ts';
import { timelineEvent } from './timeline.ts';

/** Collections as the operator and the merchant console read them, and the operator settling one. */

export const txnIdParam = { type: 'object', properties: { txnId: { type: 'string' } } } as const;

export const adminCollectionView = {
  type: 'object',
  properties: {
    ...WIRE_SCHEMAS.CollectionTransaction.properties,
    merchant_id: text,
    callback_url: nullableText,
    scheme: { type: 'string', enum: SCHEME_NAMES },
    psp_reference: nullableText,
    merchant_name: { type: ['string', 'null'], description: 'Operator lists: the merchant’s name' },
  },
} as const;

export const collectionListQuery = {
  type: 'object',
  properties: {
    merchant_id: { type: 'string' },
    status: { type: 'string', enum: COLLECTION_STATUSES },
    sender_id: { type: 'string' },
    ...pageQueryProperties,
    ...createdRangeQuery,
  },
} as const;

export const collectionPage = pageSchema(adminCollectionView);

export const collectionTimeline = {
  type: 'object',
  properties: { txnId: text, events: { type: 'array', items: timelineEvent } },
} as const;

export const collectionResolveBody = {
  type: 'object',
  required: ['status'],
  additionalProperties: false,
  properties: {
    status: { type: 'string', enum: ['SUCCESS', 'FAILED', 'PENDING'] },
    utr: { type: 'string', pattern: '^[\\x21-\\x7e]{1,40}$', description: 'Bank reference of the payment' },
    reason: {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      pattern: '^[^\\u0000-\\u001f\\u007f]*$',
      description: 'Why (kept in the history)',
    },
  },
} as const;
