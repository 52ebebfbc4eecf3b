import type { FastifyRequest } from 'fastify';
/** Schema pieces shared by the operator routes. */
export const adminRouteOptions = { config: { errorStyle: 'admin' as const } };

export const adminError = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: { code: { type: 'string' }, message: { type: 'string' } },
      required: ['code', 'message'],
    },
  },
} as const;

export const adminErrorResponses = {
  400: adminError,
  401: adminError,
  404: adminError,
  409: adminError,
} as const;

export const amountText = {
  anyOf: [
    { type: 'string', pattern: '^[0-9]+(\\.[0-9]{1,2})?$' },
    { type: 'number', exclusiveMinimum: 0 },
  ],
  description: 'Rupees as decimal text with at most two fraction digits (a JSON number is accepted too)',
} as const;

export const merchantIdParam = {
  type: 'object',
  required: ['merchant_id'],
  properties: { merchant_id: { type: 'string' } },
} as const;

export const walletIdParam = {
  type: 'object',
  required: ['wallet_id'],
  properties: { wallet_id: { type: 'string' } },
} as const;

/**
 * Who an operator call is, as transaction histories name it: `operator:admin-token` for the admin token,
 * `operator:<e-mail>` for an operator's console session.
 */
export const historyActor = (request: FastifyRequest) =>
  request.actor?.via === 'session' ? `operator:${request.actor.name}` : 'operator:admin-token';

/** The answer of the timeline routes (docs/operations.md, "History of every transaction"). */
export const timelineEventSchema = {
  type: 'object',
  required: ['at', 'type', 'from', 'to', 'reason', 'actor'],
  properties: {
    at: { type: 'string', format: 'date-time' },
    type: { type: 'string', enum: ['request', 'status', 'error', 'webhook_attempt'] },
    from: { type: ['string', 'null'] },
    to: { type: ['string', 'null'] },
    reason: { type: ['string', 'null'] },
    actor: { type: 'string', description: 'merchant, rail:<name>, worker, operator:<name> or system' },
    utr: { type: 'string', description: "A payout's change to SUCCESS: the transfer's UTR" },
    event_type: { type: 'string', description: 'webhook_attempt: the event delivered' },
    delivery_id: { type: 'string' },
    http_status: { type: ['integer', 'null'] },
    duration_ms: { type: 'integer' },
    error: { type: ['string', 'null'] },
  },
} as const;
