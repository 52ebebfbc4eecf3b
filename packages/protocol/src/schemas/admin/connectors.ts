import { bool, nullableText, text } from '../common.ts';

/** The bank connectors with their health and the upstream's treasury. */

export const connectorList = {
  type: 'object',
  properties: {
    connectors: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: text,
          routes: { type: 'array', items: text },
          capabilities: { type: 'object', additionalProperties: { type: 'boolean' } },
          healthy: bool,
          last_success_at: nullableText,
          last_failure_at: nullableText,
          last_failure: nullableText,
          treasury: {
            type: ['object', 'null'],
            properties: {
              upstream_balance: text,
              read_at: text,
              owed: text,
              coverage: nullableText,
            },
          },
        },
      },
    },
  },
} as const;
