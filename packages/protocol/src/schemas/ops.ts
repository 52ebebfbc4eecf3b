import { COLLECTION_STATUSES } from '../wire.ts';

/** Operational routes, the hosted payment page and the notifications a PSP, bank or upstream sends. */

/** GET /readyz while the database answers; the Redis fields only when Redis is configured. */
export const healthOk = {
  type: 'object',
  required: ['status'],
  properties: {
    status: { type: 'string', const: 'ok' },
    redis: {
      type: 'string',
      enum: ['ok', 'unreachable'],
      description:
        'Only when Redis is configured: whether it answered. Unreachable is not unready: rate limits and failure ' +
        'counters fall back to this instance alone',
    },
    degraded: { type: 'boolean', description: 'Only when Redis is configured: true while it is unreachable' },
  },
} as const;

/** GET /healthz: liveness, and what the instance runs (docs/operator/upgrading.md). */
export const healthLive = {
  type: 'object',
  required: ['status', 'version', 'commit', 'schema', 'worker'],
  properties: {
    status: { type: 'string', const: 'ok' },
    version: { type: 'string', description: 'The server package version' },
    commit: { type: 'string', description: 'The commit of the build, or `unknown`' },
    schema: {
      type: 'object',
      required: ['build', 'database'],
      properties: {
        build: { type: 'integer', description: 'The newest migration this build ships' },
        database: { type: 'integer', description: "The database's newest migration, as last read" },
      },
    },
    worker: { type: 'string', enum: ['on', 'off'], description: 'Whether this instance runs background work' },
  },
} as const;

export const healthUnavailable = {
  type: 'object',
  properties: { status: { type: 'string', const: 'unavailable' }, reason: { type: 'string' } },
} as const;

export const payPageParams = { type: 'object', properties: { token: { type: 'string' } } } as const;

export const payPageStatus = {
  description: 'What the page shows: the status, its label, and whether it is final',
  type: 'object',
  properties: {
    status: { type: 'string', enum: COLLECTION_STATUSES },
    label: { type: 'string' },
    final: { type: 'boolean' },
  },
} as const;

export const payPageError = {
  description: 'Refused: unknown page token (404) or a move the lifecycle refuses (409)',
  type: 'object',
  properties: {
    error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } } },
  },
} as const;

export const payPageSimulateBody = {
  type: 'object',
  required: ['outcome'],
  properties: { outcome: { type: 'string', enum: ['SUCCESS', 'FAILED'] } },
} as const;

const pspAmount = { type: 'string', description: 'Rupees as decimal text with at most two fraction digits' } as const;
const pspUtr = { type: 'string', description: 'Bank reference: 1–40 printable ASCII characters' } as const;
const pspReason = { type: 'string', description: 'Free text, at most 255 characters kept' } as const;

export const pspCollectionNotifyBody = {
  type: 'object',
  required: ['status'],
  properties: {
    txnId: { type: 'string', description: 'Payrail txnId (the `tr` of the intent link)' },
    reference: {
      type: 'string',
      description:
        "The PSP's reference; alone, it names a collection an earlier notification linked it to. Refused (409 reference_conflict) if it belongs to another collection or payout",
    },
    status: { type: 'string', enum: ['SUCCESS', 'FAILED', 'PENDING'] },
    utr: pspUtr,
    amount: pspAmount,
    reason: pspReason,
  },
} as const;

export const pspPayoutNotifyBody = {
  type: 'object',
  required: ['transactionId', 'status'],
  properties: {
    transactionId: { type: 'string' },
    reference: {
      type: 'string',
      description:
        "The bank's or PSP's own reference of the transfer; optional, refused if it belongs to another collection or payout, never kept",
    },
    status: { type: 'string', enum: ['PROCESSING', 'PENDING', 'SUCCESS', 'FAILED', 'RETURNED'] },
    utr: pspUtr,
    amount: pspAmount,
    reason: pspReason,
  },
} as const;

function notificationAccepted<const K extends string>(idName: K) {
  return {
    description: 'Applied, or nothing to change (a repeat, or news older than what is recorded)',
    type: 'object',
    properties: {
      result: { type: 'string', enum: ['applied', 'unchanged'] },
      status: { type: 'string', description: 'The status now' },
      ...({ [idName]: { type: 'string' } } as Record<K, { readonly type: 'string' }>),
    },
  } as const;
}

export const pspCollectionAccepted = notificationAccepted('txnId');

const payoutNotification = notificationAccepted('transactionId');

/**
 * A payout notification: applied, nothing to change, or refused into the exceptions queue (a report about another
 * connector's payout, or with another amount): 200 all the same, so that the sender stops retrying.
 */
export const pspPayoutAccepted = {
  ...payoutNotification,
  description: `${payoutNotification.description}, or \`refused\`: the report does not match what Payrail sent (another connector's payout, another amount or currency); nothing moved, and it is the exception \`exception_id\` for an operator`,
  properties: {
    ...payoutNotification.properties,
    result: { type: 'string', enum: ['applied', 'unchanged', 'refused'] },
    exception_id: {
      type: 'string',
      description: 'With `refused`: the exception recorded (the same report again: the same one)',
    },
    reason: { type: 'string', description: 'With `refused`: why' },
  },
} as const;

export const upstreamWebhookAccepted = {
  type: 'object',
  properties: {
    result: { type: 'string', enum: ['applied', 'unchanged', 'ignored', 'refused'] },
    transactionId: { type: 'string' },
    exception_id: { type: 'string', description: 'With `refused`: the exception the event became (nothing moved)' },
  },
} as const;
