import type { RouteRequest } from '@payrail/protocol';
import type { DeliveryWithAttempts, WebhookAdminService } from '../../services/WebhookAdminService.ts';
import { AdminError } from '../AdminError.ts';
import { readPage, seqCursor } from '../pageCursor.ts';
import { deliveryView } from '../views/deliveryView.ts';
import { merchantScopeOf, operatorFilters, type ReadScope } from './readScope.ts';

const deliveryCursor = seqCursor((r: DeliveryWithAttempts) => r.delivery.seq);

/** The webhook delivery reads (and replay) of the admin API and the merchant console, each in its scope. */
export function readDeliveries(deps: { webhookAdmin: WebhookAdminService }) {
  return {
    /** A page of deliveries, newest first, each with every attempt. */
    async list(q: RouteRequest<'GET /admin/v1/webhooks/deliveries'>['Querystring'], scope: ReadScope) {
      const page = await readPage(q, deliveryCursor, (limit, before) =>
        deps.webhookAdmin.page(
          {
            ...operatorFilters(scope, { merchantId: q.merchant_id || undefined, subjectId: q.subject_id || undefined }),
            state: q.state,
            limit,
            before,
          },
          merchantScopeOf(scope),
        ),
      );
      return { ...page, data: page.data.map((r) => deliveryView(r.delivery, r.attempts)) };
    },

    /** Queues a delivery again (404 for none, or one outside the scope): the 202's body. */
    async replay(id: string, scope: ReadScope) {
      if (!(await deps.webhookAdmin.replay(id, merchantScopeOf(scope)))) throw AdminError.notFound('delivery');
      return { id, state: 'pending' };
    },
  };
}
