import type { FastifyInstance } from 'fastify';
import type { TreasuryService } from '../../services/TreasuryService.ts';
import { adminRouteOptions } from './adminSchemas.ts';

const nullableText = { type: ['string', 'null'] } as const;

/** GET /admin/v1/connectors: each connector's routes, health and, for the upstream, the treasury. */
export function adminConnectorRoutes(app: FastifyInstance, deps: { treasury: TreasuryService }) {
  app.get(
    '/admin/v1/connectors',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'Connectors: payment modes routed to each, health, and the upstream treasury',
        description:
          '`healthy`: the last call this instance made to the connector succeeded (or none was made yet). ' +
          '`treasury` (upstream only): the upstream wallet’s balance (read at most 30 s earlier), what Payrail owes ' +
          '(every wallet balance plus payouts on hold) and their ratio with 4 decimals; below 1.0000 the upstream ' +
          'account does not cover what merchants hold.',
        response: {
          200: {
            type: 'object',
            properties: {
              connectors: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    name: { type: 'string' },
                    routes: { type: 'array', items: { type: 'string' } },
                    capabilities: { type: 'object', additionalProperties: { type: 'boolean' } },
                    healthy: { type: 'boolean' },
                    last_success_at: nullableText,
                    last_failure_at: nullableText,
                    last_failure: nullableText,
                    treasury: {
                      type: ['object', 'null'],
                      properties: {
                        upstream_balance: { type: 'string' },
                        read_at: { type: 'string' },
                        owed: { type: 'string' },
                        coverage: nullableText,
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
    async () => ({ connectors: await deps.treasury.list() }),
  );
}
