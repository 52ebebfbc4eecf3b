import { CollectionCodes, isId, withMessage } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import { toCollectionWire } from '../../domain/Collection.ts';
import { RequestRejected } from '../../domain/RequestRejected.ts';
import type { CollectionService, FinalOutcome } from '../../services/CollectionService.ts';
import type { Session, TokenService } from '../../services/TokenService.ts';
import { sendEnvelope } from '../plugins/errorHandler.ts';
import { requireMerchant } from '../plugins/merchantAuth.ts';
import { bearerSecurity, collectionEnvelope } from './merchantSchemas.ts';

/**
 * Sandbox-only: POST /sandbox/v1/collections/{txnId}/simulate moves the caller's own collection as a customer
 * and bank would. Registered only in sandbox mode, so it answers 404 in live mode.
 */
export function sandboxRoutes(app: FastifyInstance, deps: { tokens: TokenService; collections: CollectionService }) {
  const invalidOutcome = withMessage(CollectionCodes.invalidField, 'Invalid outcome: use SUCCESS, FAILED or PENDING');
  app.post(
    '/sandbox/v1/collections/:txnId/simulate',
    {
      onRequest: requireMerchant(deps.tokens, CollectionCodes.unauthorized),
      config: { errorStyle: 'collection', invalidBody: invalidOutcome },
      schema: {
        tags: ['sandbox'],
        summary: 'Simulate the outcome of one of your collections (sandbox only)',
        description: 'Plain JSON body. Reporting the current status again changes nothing (idempotent).',
        security: bearerSecurity,
        params: { type: 'object', properties: { txnId: { type: 'string' } } },
        body: {
          type: 'object',
          required: ['outcome'],
          properties: { outcome: { type: 'string', enum: ['SUCCESS', 'FAILED', 'PENDING'] }, utr: { type: 'string' } },
        },
        response: {
          200: collectionEnvelope('2000; data = CollectionTransaction'),
          400: collectionEnvelope('4105 malformed txnId, 4111 invalid outcome'),
          401: collectionEnvelope('4008'),
          404: collectionEnvelope('4104: not found (or another merchant’s)'),
          409: collectionEnvelope('4113: the collection cannot move to that status'),
        },
      },
    },
    async (request, reply) => {
      const session = request.session as Session;
      const { txnId } = request.params as { txnId: string };
      const { outcome, utr } = request.body as { outcome: FinalOutcome; utr?: string };
      if (!isId('collection', txnId)) throw new RequestRejected(CollectionCodes.malformedTxnId);
      const result = await deps.collections.applyOutcome(txnId, outcome, {
        utr,
        merchantId: session.merchant.id,
        actor: 'merchant',
      });
      if (!result.ok && result.reason === 'not_found') throw new RequestRejected(CollectionCodes.notFound);
      if (!result.ok) {
        throw new RequestRejected(
          withMessage(
            CollectionCodes.transitionNotAllowed,
            `The collection is ${result.status} and cannot become ${outcome}`,
          ),
        );
      }
      return sendEnvelope(request, reply, CollectionCodes.simulated, toCollectionWire(result.collection));
    },
  );
}
