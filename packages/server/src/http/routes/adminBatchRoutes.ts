import { ROUTE_SCHEMAS as R, type RouteRequest } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import type { BulkPayoutService } from '../../services/BulkPayoutService.ts';
import type { MerchantService } from '../../services/MerchantService.ts';
import { readBatches } from '../reads/batches.ts';
import { adminErrorResponses, adminRouteOptions } from './adminSchemas.ts';

/** Operator views of bulk payouts: the batches, and one batch with every item (docs/merchant/bulk-and-verification.md). */
export function adminBatchRoutes(
  app: FastifyInstance,
  deps: { bulkPayouts: BulkPayoutService; merchants: MerchantService },
) {
  const batches = readBatches(deps);
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
    async (request) => batches.list(request.query, 'operator'),
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
      return batches.get(batch_id, { merchantId: merchant_id });
    },
  );
}
