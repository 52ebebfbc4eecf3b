import {
  CollectionCodes,
  merchantErrorResponses,
  ROUTE_SCHEMAS as R,
  withMessage,
  type RouteRequest,
} from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import type { CollectionSimulator } from '../../services/CollectionSimulator.ts';
import type { Session, TokenService } from '../../services/TokenService.ts';
import { sendEnvelope } from '../sendEnvelope.ts';
import { requireMerchant } from '../plugins/merchantAuth.ts';
import { bearerSecurity } from './merchantSchemas.ts';

/**
 * Sandbox-only: POST /sandbox/v1/collections/{txnId}/simulate moves the caller's own collection as a customer
 * and bank would. Registered only in sandbox mode, so it answers 404 in live mode.
 */
export function sandboxRoutes(
  app: FastifyInstance,
  deps: { tokens: TokenService; collectionSimulator: CollectionSimulator },
) {
  const invalidOutcome = withMessage(CollectionCodes.invalidField, 'Invalid outcome: use SUCCESS, FAILED or PENDING');
  app.post<RouteRequest<'POST /sandbox/v1/collections/:txnId/simulate'>>(
    '/sandbox/v1/collections/:txnId/simulate',
    {
      onRequest: requireMerchant(deps.tokens, CollectionCodes.unauthorized),
      config: { errorStyle: 'collection', invalidBody: invalidOutcome },
      schema: {
        tags: ['sandbox'],
        summary: 'Simulate the outcome of one of your collections (sandbox only)',
        description: 'Plain JSON body. Reporting the current status again changes nothing (idempotent).',
        security: bearerSecurity,
        ...R['POST /sandbox/v1/collections/:txnId/simulate'],
        response: {
          ...R['POST /sandbox/v1/collections/:txnId/simulate'].response,
          ...merchantErrorResponses('POST /sandbox/v1/collections/:txnId/simulate'),
        },
      },
    },
    async (request, reply) => {
      const session = request.session as Session;
      const { txnId } = request.params;
      const { outcome, utr } = request.body;
      const data = await deps.collectionSimulator.simulate(session.merchant.id, txnId, outcome, utr);
      return sendEnvelope(request, reply, CollectionCodes.simulated, data);
    },
  );
}
