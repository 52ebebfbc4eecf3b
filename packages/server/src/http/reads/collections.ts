import { isId, type RouteRequest } from '@payrail/protocol';
import type { Collection } from '../../domain/Collection.ts';
import type { CollectionReads } from '../../services/CollectionReads.ts';
import type { MerchantService } from '../../services/MerchantService.ts';
import { AdminError } from '../AdminError.ts';
import { createdRange } from '../consoleListing.ts';
import { readPage, textCursor } from '../pageCursor.ts';
import { adminCollectionView } from '../views/adminCollectionView.ts';
import { merchantScopeOf, operatorFilters, scopedViews, type ReadScope } from './readScope.ts';

const collectionCursor = textCursor(
  (key) => isId('collection', key),
  (c: Collection) => c.id,
);

/** The collection reads of the admin API and the merchant console: the same answers, each in its scope. */
export function readCollections(deps: { collections: CollectionReads; merchants: MerchantService }) {
  const view = (c: Collection) => adminCollectionView(c, deps.collections.wire(c));
  return {
    /** A page of collections, newest first. */
    async list(q: RouteRequest<'GET /admin/v1/collections'>['Querystring'], scope: ReadScope) {
      const page = await readPage(q, collectionCursor, (limit, after) =>
        deps.collections.page(
          {
            ...operatorFilters(scope, { merchantId: q.merchant_id || undefined, senderId: q.sender_id || undefined }),
            status: q.status,
            limit,
            after,
            ...createdRange(q),
          },
          merchantScopeOf(scope),
        ),
      );
      return { ...page, data: await scopedViews(scope, deps.merchants, page.data.map(view)) };
    },

    /** One collection (404 for none, or one outside the scope). */
    async get(txnId: string, scope: ReadScope) {
      const found = await deps.collections.find(txnId, merchantScopeOf(scope));
      if (!found) throw AdminError.notFound('collection');
      const [answer] = await scopedViews(scope, deps.merchants, [view(found)]);
      return answer;
    },
  };
}
