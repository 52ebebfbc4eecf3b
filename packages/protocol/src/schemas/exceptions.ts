import { createdRangeQuery, dateTime, idParams, pageQueryProperties, pageSchema, text } from './common.ts';

/**
 * The exceptions queue (docs/operator/exceptions.md): everything that disagrees with Payrail's books, refused outside
 * reports and reconciliation results other than matched, each recorded once and resolved once.
 */

export const EXCEPTION_KIND_NAMES = [
  'report_refused',
  'status_contradiction',
  'return_mismatch',
  'paid_but_refunded',
  'return_not_applied',
  'amount_mismatch',
  'unmatched',
  'missing',
  'unknown_virtual_account',
  'remitter_not_allowed',
] as const;
export const EXCEPTION_STATES = ['open', 'resolved'] as const;
/**
 * A reconciliation item's results: paid_but_refunded (the bank paid a payout Payrail failed and refunded) and
 * return_not_applied (the bank returned a payout still SUCCESS in Payrail) are contradictions; all but matched are
 * exceptions.
 */
export const RECON_RESULT_NAMES = [
  'matched',
  'amount_mismatch',
  'unmatched',
  'missing',
  'paid_but_refunded',
  'return_not_applied',
] as const;
export const EXCEPTION_ACTIONS = [
  'apply_as_reported',
  'refund_in_full',
  'assign_to_wallet',
  'return_to_sender',
  'dismiss',
] as const;

const facts = {
  type: 'object',
  description: 'Field by field, amounts as rupees text',
  additionalProperties: true,
} as const;

export const exceptionView = {
  type: 'object',
  properties: {
    exception_id: text,
    kind: { type: 'string', enum: EXCEPTION_KIND_NAMES },
    state: { type: 'string', enum: EXCEPTION_STATES },
    source: {
      type: 'string',
      description: 'upstream_webhook, upstream_poll (or <connector>_poll), psp_notify, bankfile, reconciliation',
    },
    source_ref: { type: 'string', description: "The bank file's name, or the reconciliation run's id" },
    merchant_id: text,
    payout_id: text,
    wallet_id: text,
    amount: { type: 'string', description: 'The amount at stake (rupees)' },
    reported: { ...facts, description: 'What the report said (amounts as rupees text)' },
    held: { ...facts, description: 'What Payrail holds of the item it names' },
    reason: text,
    created_at: dateTime,
    allowed_actions: { type: 'array', items: { type: 'string', enum: EXCEPTION_ACTIONS } },
    resolution: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: EXCEPTION_ACTIONS },
        reason: text,
        by: text,
        at: dateTime,
      },
    },
    return_payout_id: {
      type: 'string',
      description: 'return_to_sender: the latest payout returning the deposit to its sender (the platform’s)',
    },
    reopened: {
      type: 'object',
      description: 'Opened again because its return to sender failed or came back (the money is in PW_SUSPENSE)',
      properties: { at: dateTime, reason: text },
    },
  },
} as const;

export const exceptionPage = pageSchema(exceptionView);

export const exceptionQuery = {
  type: 'object',
  properties: {
    state: { type: 'string', enum: EXCEPTION_STATES },
    kind: { type: 'string', enum: EXCEPTION_KIND_NAMES },
    merchant_id: { type: 'string', maxLength: 40 },
    ...createdRangeQuery,
    format: { type: 'string', enum: ['json', 'csv'] },
    ...pageQueryProperties,
  },
} as const;

export const exceptionIdParam = idParams('exception_id', { type: 'string', maxLength: 40 });

export const exceptionResolveBody = {
  type: 'object',
  required: ['action', 'reason'],
  additionalProperties: false,
  properties: {
    action: { type: 'string', enum: EXCEPTION_ACTIONS },
    reason: { type: 'string', minLength: 1, maxLength: 1000 },
    wallet_id: {
      type: 'string',
      minLength: 1,
      maxLength: 40,
      description: 'assign_to_wallet: the wallet the deposit is credited to',
    },
  },
} as const;
