import type { RouteRequest } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import type { BulkPayoutService } from '../../services/BulkPayoutService.ts';
import type { MerchantService } from '../../services/MerchantService.ts';
import { readBatches } from '../reads/batches.ts';
import { consoleMerchantRoute, scopeOf } from './consoleMerchantOptions.ts';

/** The merchant's bulk payout batches: the operator's reads (adminBatchRoutes.ts) in its scope. */
export function consoleMerchantBatchRoutes(
  scope: FastifyInstance,
  deps: { bulkPayouts: BulkPayoutService; merchants: MerchantService },
) {
  const batches = readBatches(deps);

  scope.get<RouteRequest<'GET /console/api/merchant/batches'>>(
    '/console/api/merchant/batches',
    consoleMerchantRoute('GET /console/api/merchant/batches', "The merchant's bulk payout batches, newest first"),
    async (request) => batches.list(request.query, scopeOf(request)),
  );

  scope.get<RouteRequest<'GET /console/api/merchant/batches/:batch_id'>>(
    '/console/api/merchant/batches/:batch_id',
    consoleMerchantRoute(
      'GET /console/api/merchant/batches/:batch_id',
      'One of the merchant’s batches with its summary by status and every item',
    ),
    // Looked up under the signed-in merchant only: another merchant's batch id is simply not there.
    async (request) => batches.get(request.params.batch_id, scopeOf(request)),
  );
}
