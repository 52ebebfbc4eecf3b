/** A transaction's history, as a payout's and a collection's timeline answer it. */

/** One entry of a transaction's history (docs/operator/operations.md, "History of every transaction"). */
export const timelineEvent = {
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
