import { COLLECTION_STATUSES, isId, type CollectionStatus } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import { toCollectionWire, type Collection } from '../../domain/Collection.ts';
import type { CollectionService } from '../../services/CollectionService.ts';
import { decodeCursor, pageLimit, pageOf } from '../pageCursor.ts';
import { AdminError } from '../AdminError.ts';
import { adminErrorResponses, adminRouteOptions, timelineEventSchema } from './adminSchemas.ts';

export const adminCollectionView = (c: Collection) => ({
  ...toCollectionWire(c),
  merchant_id: c.merchantId,
  callback_url: c.callbackUrl,
  scheme: c.scheme,
});

/** Operator view of collections: filters and cursor pagination, newest first. */
export function adminCollectionRoutes(app: FastifyInstance, deps: { collections: CollectionService }) {
  app.get(
    '/admin/v1/collections',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'List collections, newest first, with cursor pagination',
        querystring: {
          type: 'object',
          properties: {
            merchant_id: { type: 'string' },
            status: { type: 'string', enum: [...COLLECTION_STATUSES] },
            sender_id: { type: 'string' },
            limit: { type: 'string', pattern: '^[0-9]+$' },
            cursor: { type: 'string' },
          },
        },
        response: adminErrorResponses,
      },
    },
    async (request) => {
      const q = request.query as {
        merchant_id?: string;
        status?: CollectionStatus;
        sender_id?: string;
        limit?: string;
        cursor?: string;
      };
      const limit = pageLimit(q.limit);
      const after = decodeCursor(q.cursor, (key) => isId('collection', key));
      const rows = await deps.collections.page({
        merchantId: q.merchant_id || undefined,
        status: q.status,
        senderId: q.sender_id || undefined,
        limit: limit + 1,
        after,
      });
      const page = pageOf(rows, limit, (c) => c.id);
      return { ...page, data: page.data.map(adminCollectionView) };
    },
  );

  app.get(
    '/admin/v1/collections/:txnId/timeline',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'History of a collection: creation, status changes, webhook attempts (oldest first)',
        params: { type: 'object', properties: { txnId: { type: 'string' } } },
        response: {
          200: {
            type: 'object',
            properties: { txnId: { type: 'string' }, events: { type: 'array', items: timelineEventSchema } },
          },
          ...adminErrorResponses,
        },
      },
    },
    async (request) => {
      const { txnId } = request.params as { txnId: string };
      const events = await deps.collections.timeline(txnId);
      if (!events) throw AdminError.notFound('collection');
      return { txnId, events };
    },
  );
}
