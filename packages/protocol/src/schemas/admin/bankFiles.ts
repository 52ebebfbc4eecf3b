import { integer, nullableText, text } from '../common.ts';

/** Bank files: the pain.001 files cut and the files received. */

export const bankFileLimitQuery = {
  type: 'object',
  // Text like every other list's limit: the server does not coerce query strings, so an integer schema refused
  // `?limit=5` with 400. Clamped to 1–500, default 100, by the route (pageLimit).
  properties: { limit: { type: 'string', pattern: '^[0-9]{1,6}$' } },
} as const;

export const bankFileList = {
  type: 'object',
  properties: {
    data: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          msg_id: text,
          file_name: text,
          created_at: text,
          delivered_at: nullableText,
          payout_count: integer,
          ctrl_sum: text,
          payout_states: { type: 'object', additionalProperties: { type: 'integer' } },
        },
      },
    },
  },
} as const;

export const bankFileInboundList = {
  type: 'object',
  properties: {
    data: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: text,
          sha256: text,
          message_type: nullableText,
          state: { type: 'string', enum: ['applied', 'failed'] },
          reason: nullableText,
          entries: integer,
          refused: integer,
          received_at: text,
        },
      },
    },
  },
} as const;

export const bankFileParams = {
  type: 'object',
  properties: { msg_id: { type: 'string' } },
  required: ['msg_id'],
} as const;
