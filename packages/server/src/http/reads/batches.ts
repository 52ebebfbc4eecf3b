import type { RouteRequest } from '@payrail/protocol';
import type { BulkPayoutService } from '../../services/BulkPayoutService.ts';
import type { MerchantScope } from '../../services/MerchantScope.ts';
import type { MerchantService } from '../../services/MerchantService.ts';
import { AdminError } from '../AdminError.ts';
import { batchCursor } from '../batchKey.ts';
import { createdRange } from '../consoleListing.ts';
import { readPage } from '../pageCursor.ts';
import { batchDetailView } from '../views/batchDetailView.ts';
import { batchView } from '../views/batchView.ts';
import { merchantScopeOf, operatorFilters, scopedViews, type ReadScope } from './readScope.ts';

/** The bulk batch reads of the admin API and the merchant console: the same answers, each in its scope. */
export function readBatches(deps: { bulkPayouts: BulkPayoutService; merchants: MerchantService }) {
  return {
    /** A page of batches, newest first. */
    async list(q: RouteRequest<'GET /admin/v1/batches'>['Querystring'], scope: ReadScope) {
      const page = await readPage(q, batchCursor, (limit, after) =>
        deps.bulkPayouts.page(
          {
            ...operatorFilters(scope, { merchantId: q.merchant_id || undefined }),
            limit,
            after,
            ...createdRange(q),
          },
          merchantScopeOf(scope),
        ),
      );
      return { ...page, data: await scopedViews(scope, deps.merchants, page.data.map(batchView)) };
    },

    /** One batch of a merchant (a batch id is the merchant's own) with every item; 404 for none. */
    async get(batchId: string, merchant: MerchantScope) {
      const found = await deps.bulkPayouts.get(batchId, merchant);
      if (!found) throw AdminError.notFound('batch');
      return batchDetailView(found);
    },
  };
}
