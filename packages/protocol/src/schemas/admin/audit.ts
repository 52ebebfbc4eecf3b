import { dateTime, integer, pageQueryProperties, pageSchema, text } from '../common.ts';

/** The audit log. */

export const auditEntry = {
  type: 'object',
  properties: {
    id: text,
    at: dateTime,
    actor: text,
    actor_name: text,
    actor_role: text,
    action: text,
    target: text,
    client_address: text,
    outcome: text,
    http_status: integer,
    detail: text,
    count: { type: 'integer', description: 'A counted row: that many refusals within the minute of `at`' },
  },
} as const;

export const auditQuery = {
  type: 'object',
  properties: {
    ...pageQueryProperties,
    actor: { type: 'string', maxLength: 254 },
  },
} as const;

export const auditPage = pageSchema(auditEntry);
