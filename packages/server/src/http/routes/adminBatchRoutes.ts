import { ROUTE_SCHEMAS as R, type RouteRequest } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import type { BulkPayoutService } from '../../services/BulkPayoutService.ts';
import type { MerchantService } from '../../services/MerchantService.ts';
import { AdminError } from '../AdminError.ts';
import { batchKeyOf, parseBatchKey } from '../batchKey.ts';
import { decodeCursor, pageLimit, pageOf } from '../pageCursor.ts';
import { createdRange, withMerchantNames } from '../consoleListing.ts';
import { batchDetailView } from '../views/batchDetailView.ts';
import { batchView } from '../views/batchView.ts';
import { adminErrorResponses, adminRouteOptions } from './adminSchemas.ts';

/** Operator views of bulk payouts: the batches, and one batch with every item (docs/merchant/bulk-and-verification.md). */
export function adminBatchRoutes(
  app: FastifyInstance,
  deps: { bulkPayouts: BulkPayoutService; merchants: MerchantService },
) {
  app.get<RouteRequest<'GET /admin/v1/batches'>>(
    '/admin/v1/batches',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'List bulk payout batches, newest first, with cursor pagination',
        ...R['GET /admin/v1/batches'],
        response: { ...R['GET /admin/v1/batches'].response, ...adminErrorResponses },
      },
    },
    async (request) => {
      const q = request.query;
      const limit = pageLimit(q.limit);
      const key = decodeCursor(q.cursor, (k) => parseBatchKey(k) !== null);
      const rows = await deps.bulkPayouts.page({
        merchantId: q.merchant_id || undefined,
        limit: limit + 1,
        after: key ? (parseBatchKey(key) ?? undefined) : undefined,
        ...createdRange(q),
      });
      const page = pageOf(rows, limit, batchKeyOf);
      return { ...page, data: await withMerchantNames(deps.merchants, page.data.map(batchView)) };
    },
  );

  app.get<RouteRequest<'GET /admin/v1/batches/:merchant_id/:batch_id'>>(
    '/admin/v1/batches/:merchant_id/:batch_id',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'One batch (by merchant and batch_id) with its summary by status and every item',
        ...R['GET /admin/v1/batches/:merchant_id/:batch_id'],
        response: { ...R['GET /admin/v1/batches/:merchant_id/:batch_id'].response, ...adminErrorResponses },
      },
    },
    async (request) => {
      const { merchant_id, batch_id } = request.params;
      const found = await deps.bulkPayouts.get(batch_id, { merchantId: merchant_id });
      if (!found) throw AdminError.notFound('batch');
      return batchDetailView(found);
    },
  );
}
