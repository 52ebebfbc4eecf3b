import { dateTime, idParams, nullableDateTime, nullableText, rupeesText, text } from '../common.ts';
import { amountInput } from './wallets.ts';

/** Liens on wallets (docs/operator/liens.md): placed, released, enforced, approved by a second operator. */

export const lienIdParam = idParams('lien_id', { type: 'string', maxLength: 64 });

export const lienPlaceBody = {
  type: 'object',
  required: ['amount', 'reason'],
  additionalProperties: false,
  properties: {
    amount: amountInput,
    reason: { type: 'string', minLength: 1, maxLength: 500 },
    expires_at: { ...dateTime, description: 'When the lien stops holding by itself (ISO 8601, in the future)' },
  },
} as const;

export const lienActionBody = {
  type: 'object',
  required: ['reason'],
  additionalProperties: false,
  properties: {
    amount: { ...amountInput, description: 'Rupees; all that the lien still holds when absent' },
    reason: { type: 'string', minLength: 1, maxLength: 500 },
  },
} as const;

export const LIEN_STATES = ['pending', 'active', 'released', 'enforced', 'expired', 'rejected'] as const;

export const lienView = {
  type: 'object',
  required: [
    'lien_id',
    'wallet_id',
    'amount',
    'remaining',
    'released',
    'enforced',
    'reason',
    'state',
    'expires_at',
    'placed_by',
    'approved_by',
    'release_reason',
    'released_by',
    'pending_enforcement',
    'created_at',
    'updated_at',
  ],
  properties: {
    lien_id: text,
    wallet_id: text,
    amount: { ...rupeesText, description: 'As placed' },
    remaining: { ...rupeesText, description: 'What the lien holds now (0.00 once released, enforced or expired)' },
    released: rupeesText,
    enforced: { ...rupeesText, description: 'Moved to PW_RECOVERY' },
    reason: text,
    state: { type: 'string', enum: LIEN_STATES },
    expires_at: nullableDateTime,
    placed_by: text,
    approved_by: nullableText,
    release_reason: { ...nullableText, description: "The latest release's reason (null until a release)" },
    released_by: { ...nullableText, description: 'Who made the latest release' },
    pending_enforcement: {
      type: ['object', 'null'],
      description: 'An enforcement waiting for a second operator',
      required: ['amount', 'requested_by', 'reason'],
      properties: { amount: rupeesText, requested_by: text, reason: text },
    },
    created_at: dateTime,
    updated_at: dateTime,
  },
} as const;

export const lienList = {
  type: 'object',
  required: ['wallet_id', 'on_lien', 'liens'],
  properties: { wallet_id: text, on_lien: rupeesText, liens: { type: 'array', items: lienView } },
} as const;
