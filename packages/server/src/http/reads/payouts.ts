import { isId, type RouteRequest } from '@payrail/protocol';
import type { Payout } from '../../domain/Payout.ts';
import type { MerchantService } from '../../services/MerchantService.ts';
import type { PayoutAdminService } from '../../services/PayoutAdminService.ts';
import type { WebhookAdminService } from '../../services/WebhookAdminService.ts';
import { AdminError } from '../AdminError.ts';
import { createdRange, deliverySummary } from '../consoleListing.ts';
import { readPage, textCursor } from '../pageCursor.ts';
import { adminPayoutView } from '../views/adminPayoutView.ts';
import { merchantScopeOf, operatorFilters, scopedViews, type ReadScope } from './readScope.ts';

const payoutCursor = textCursor(
  (key) => isId('payout', key),
  (p: Payout) => p.id,
);

/** The payout reads of the admin API and the merchant console: the same answers, each in its scope. */
export function readPayouts(deps: {
  payoutAdmin: PayoutAdminService;
  merchants: MerchantService;
  webhookAdmin: WebhookAdminService;
}) {
  return {
    /** A page of payouts, newest first. */
    async list(q: RouteRequest<'GET /admin/v1/payouts'>['Querystring'], scope: ReadScope) {
      const page = await readPage(q, payoutCursor, (limit, after) =>
        deps.payoutAdmin.page(
          {
            ...operatorFilters(scope, { merchantId: q.merchant_id || undefined }),
            status: q.status,
            limit,
            after,
            ...createdRange(q),
          },
          merchantScopeOf(scope),
        ),
      );
      return { ...page, data: await scopedViews(scope, deps.merchants, page.data.map(adminPayoutView)) };
    },

    /** One payout (404 for one outside the scope). */
    async get(transactionId: string, scope: ReadScope) {
      const payout = await deps.payoutAdmin.get(transactionId, merchantScopeOf(scope));
      if (!payout) throw AdminError.notFound('payout');
      const [view] = await scopedViews(scope, deps.merchants, [adminPayoutView(payout)]);
      return view;
    },

    /** A payout's history with its webhook deliveries (404 for one outside the scope). */
    async timeline(transactionId: string, scope: ReadScope) {
      const events = await deps.payoutAdmin.timeline(transactionId, merchantScopeOf(scope));
      if (!events) throw AdminError.notFound('payout');
      const deliveries = await deliverySummary(deps.webhookAdmin, transactionId, merchantScopeOf(scope));
      return { transaction_id: transactionId, events, deliveries };
    },
  };
}
