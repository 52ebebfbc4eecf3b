import { ROUTE_SCHEMAS as R } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import type { TreasuryService } from '../../services/TreasuryService.ts';
import { adminAuthErrorResponses, adminRouteOptions } from './adminSchemas.ts';

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
        ...R['GET /admin/v1/connectors'],
        response: { ...R['GET /admin/v1/connectors'].response, ...adminAuthErrorResponses },
      },
    },
    async () => ({ connectors: await deps.treasury.list() }),
  );
}
