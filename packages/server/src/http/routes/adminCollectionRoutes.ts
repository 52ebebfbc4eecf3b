import { ROUTE_SCHEMAS as R, type RouteRequest } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import type { CollectionOutcomes } from '../../services/CollectionOutcomes.ts';
import type { CollectionReads } from '../../services/CollectionReads.ts';
import type { MerchantService } from '../../services/MerchantService.ts';
import { AdminError } from '../AdminError.ts';
import { readCollections } from '../reads/collections.ts';
import { adminCollectionView } from '../views/adminCollectionView.ts';
import { adminErrorResponses, adminRouteOptions, historyActor } from './adminSchemas.ts';

/** Operator view of collections: filters and cursor pagination, newest first. */
export function adminCollectionRoutes(
  app: FastifyInstance,
  deps: { collections: CollectionReads; collectionOutcomes: CollectionOutcomes; merchants: MerchantService },
) {
  const collections = readCollections(deps);
  app.get<RouteRequest<'GET /admin/v1/collections'>>(
    '/admin/v1/collections',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'List collections, newest first, with cursor pagination',
        ...R['GET /admin/v1/collections'],
        response: { ...R['GET /admin/v1/collections'].response, ...adminErrorResponses },
      },
    },
    async (request) => collections.list(request.query, 'operator'),
  );

  app.get<RouteRequest<'GET /admin/v1/collections/:txnId'>>(
    '/admin/v1/collections/:txnId',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'One collection by txnId (404 when there is none)',
        ...R['GET /admin/v1/collections/:txnId'],
        response: { ...R['GET /admin/v1/collections/:txnId'].response, ...adminErrorResponses },
      },
    },
    // As the list answers it, with the merchant's name.
    async (request) => collections.get(request.params.txnId, 'operator'),
  );

  app.get<RouteRequest<'GET /admin/v1/collections/:txnId/timeline'>>(
    '/admin/v1/collections/:txnId/timeline',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'History of a collection: creation, status changes, webhook attempts (oldest first)',
        ...R['GET /admin/v1/collections/:txnId/timeline'],
        response: { ...R['GET /admin/v1/collections/:txnId/timeline'].response, ...adminErrorResponses },
      },
    },
    async (request) => {
      const { txnId } = request.params;
      const events = await deps.collections.timeline(txnId);
      if (!events) throw AdminError.notFound('collection');
      return { txnId, events };
    },
  );

  app.post<RouteRequest<'POST /admin/v1/collections/:txnId/resolve'>>(
    '/admin/v1/collections/:txnId/resolve',
    {
      ...adminRouteOptions,
      config: { ...adminRouteOptions.config, role: 'finance', audit: 'collection.resolve' },
      schema: {
        tags: ['admin'],
        summary: 'Settle a collection as SUCCESS, FAILED or PENDING (audited; docs/operator/live-mode.md)',
        description:
          'The same path as every outcome: a SUCCESS credits the wallet once, the webhook is sent, the history records the operator and the reason. In live mode a SUCCESS needs the UTR of the payment. Resolving to the status the collection already has (with the same UTR, or none) changes nothing and answers 200; any other move the lifecycle refuses answers 409.',
        ...R['POST /admin/v1/collections/:txnId/resolve'],
        response: { ...R['POST /admin/v1/collections/:txnId/resolve'].response, ...adminErrorResponses },
      },
    },
    async (request) => {
      const { txnId } = request.params;
      const body = request.body;
      const result = await deps.collectionOutcomes.resolve(txnId, body.status, {
        utr: body.utr,
        reason: body.reason,
        actor: historyActor(request),
      });
      if (result.ok) return adminCollectionView(result.collection, deps.collections.wire(result.collection));
      if (result.reason === 'not_found') throw AdminError.notFound('collection');
      if (result.reason === 'utr_required')
        throw AdminError.invalid('utr is required to resolve as SUCCESS in live mode');
      throw new AdminError(result.reason === 'invalid_transition' ? 'invalid_state' : result.reason, result.message);
    },
  );
}
