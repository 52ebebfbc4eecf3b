import { dateTime, integer, rupeesText } from '../common.ts';

/** The console's figures: payouts per hour and by status, webhook backlog, money on hold. */

export const statsView = {
  type: 'object',
  properties: {
    window_start: dateTime,
    window_end: dateTime,
    payouts_per_hour: {
      type: 'array',
      items: {
        type: 'object',
        properties: { hour: dateTime },
        additionalProperties: { type: 'integer' },
      },
    },
    payouts_by_status: { type: 'object', additionalProperties: { type: 'integer' } },
    success_rate: { type: ['number', 'null'] },
    webhook_backlog: { type: 'object', properties: { pending: integer, failed: integer } },
    money_on_hold: rupeesText,
    payouts_on_hold: integer,
  },
} as const;

export const statsQuery = {
  type: 'object',
  properties: { merchant_id: { type: 'string', maxLength: 40 } },
} as const;
