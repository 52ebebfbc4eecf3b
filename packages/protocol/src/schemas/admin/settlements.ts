import { WIRE_SCHEMAS } from '../../wireSchemas.ts';
import {
  createdRangeQuery,
  dateTime,
  idParams,
  nullableText,
  pageQueryProperties,
  pageSchema,
  text,
} from '../common.ts';
import { merchantIdParam } from './merchants.ts';
import { amountInput } from './wallets.ts';

/** Settlements of collections to the merchant's bank account (docs/operator/settlements.md). */

export const settlementAccountParams = merchantIdParam;

export const SETTLEMENT_SCHEDULES = ['manual', 'daily', 'instant'] as const;

export const settlementAccountBody = {
  type: 'object',
  required: ['account_number', 'ifsc', 'holder_name'],
  additionalProperties: false,
  properties: {
    account_number: { type: 'string', pattern: '^[0-9A-Za-z]{1,34}$' },
    ifsc: { type: 'string', pattern: '^[A-Za-z]{4}0[A-Za-z0-9]{6}$' },
    holder_name: { type: 'string', minLength: 1, maxLength: 140 },
    schedule: { type: 'string', enum: SETTLEMENT_SCHEDULES, description: 'Default manual' },
    at: {
      type: 'string',
      pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
      description: 'daily: the IST time of the run (HH:MM; 11:00 when absent); other schedules ignore it',
    },
    reserve_percent: {
      oneOf: [{ type: 'string', pattern: '^[0-9]{1,3}(\\.[0-9]{1,2})?$' }, { type: 'number' }],
      description: 'Percent (0–100, two decimals at most) of the last reserve_days days of collections kept back',
    },
    reserve_days: {
      type: 'integer',
      minimum: 0,
      maximum: 365,
      description: 'How many days of collections the reserve holds (7 when a reserve_percent comes without it)',
    },
  },
} as const;

export const settlementAccountView = {
  type: 'object',
  required: [
    'merchant_id',
    'account_number',
    'ifsc',
    'holder_name',
    'bank_name',
    'schedule',
    'at',
    'reserve_percent',
    'reserve_days',
    'active_from',
    'last_run_day',
    'created_at',
    'updated_at',
  ],
  properties: {
    merchant_id: text,
    account_number: text,
    ifsc: text,
    holder_name: text,
    bank_name: text,
    schedule: { type: 'string', enum: SETTLEMENT_SCHEDULES },
    at: { ...nullableText, description: 'daily: the IST time of the run' },
    reserve_percent: { type: 'string', pattern: '^[0-9]+\\.[0-9]{2}$' },
    reserve_days: { type: 'integer' },
    active_from: {
      ...dateTime,
      description: 'Settlements wait until then (a changed account: 24 hours after the change)',
    },
    last_run_day: { ...nullableText, description: 'The IST day the daily run last settled this merchant' },
    created_at: dateTime,
    updated_at: dateTime,
  },
} as const;

const { $id: _settlementId, ...settlementObject } = WIRE_SCHEMAS.Settlement;

/**
 * A settlement as operators see it: the merchant's object (always with its collections), without the plaintext's
 * `$id` (one schema may carry an id once per document).
 */
export const settlementView = settlementObject;

export const settlementIdParam = idParams('settlement_id', { type: 'string', maxLength: 64 });

export const settlementListQuery = {
  type: 'object',
  properties: {
    merchant_id: { type: 'string', maxLength: 40 },
    wallet_id: { type: 'string', maxLength: 40 },
    ...createdRangeQuery,
    ...pageQueryProperties,
  },
} as const;

export const settlementPage = pageSchema(settlementView);

export const settlementFormatQuery = {
  type: 'object',
  properties: {
    format: {
      type: 'string',
      enum: ['json', 'csv'],
      description: 'csv: the settlement report, one line per collection',
    },
  },
} as const;

export const settlementCreateBody = {
  type: 'object',
  required: ['wallet_id'],
  additionalProperties: false,
  properties: {
    wallet_id: { type: 'string', maxLength: 40 },
    amount: { ...amountInput, description: 'Rupees; everything settleable now when absent' },
  },
} as const;

export const settlementRunAnswer = {
  type: 'object',
  required: ['settlements', 'refused'],
  properties: {
    settlements: { type: 'array', items: settlementView },
    refused: {
      type: 'array',
      items: {
        type: 'object',
        required: ['wallet_id', 'reason'],
        properties: { wallet_id: text, reason: { type: 'string', enum: ['no_account', 'nothing'] } },
      },
    },
  },
} as const;
