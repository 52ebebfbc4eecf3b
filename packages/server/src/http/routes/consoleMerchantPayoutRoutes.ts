import type { RouteRequest } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import type { MerchantService } from '../../services/MerchantService.ts';
import type { PayoutAdminService } from '../../services/PayoutAdminService.ts';
import type { WebhookAdminService } from '../../services/WebhookAdminService.ts';
import { readPayouts } from '../reads/payouts.ts';
import { consoleMerchantRoute, scopeOf } from './consoleMerchantOptions.ts';

/** The merchant's payouts: the operator's reads (adminPayoutRoutes.ts) in the merchant's scope. */
export function consoleMerchantPayoutRoutes(
  scope: FastifyInstance,
  deps: { payoutAdmin: PayoutAdminService; merchants: MerchantService; webhookAdmin: WebhookAdminService },
) {
  const payouts = readPayouts(deps);

  scope.get<RouteRequest<'GET /console/api/merchant/payouts'>>(
    '/console/api/merchant/payouts',
    consoleMerchantRoute('GET /console/api/merchant/payouts', "The merchant's payouts, newest first"),
    async (request) => payouts.list(request.query, scopeOf(request)),
  );

  scope.get<RouteRequest<'GET /console/api/merchant/payouts/:transaction_id'>>(
    '/console/api/merchant/payouts/:transaction_id',
    consoleMerchantRoute('GET /console/api/merchant/payouts/:transaction_id', 'One of the merchant’s payouts'),
    async (request) => payouts.get(request.params.transaction_id, scopeOf(request)),
  );

  scope.get<RouteRequest<'GET /console/api/merchant/payouts/:transaction_id/timeline'>>(
    '/console/api/merchant/payouts/:transaction_id/timeline',
    consoleMerchantRoute(
      'GET /console/api/merchant/payouts/:transaction_id/timeline',
      'History of one of the merchant’s payouts, with its webhook deliveries (404 for another’s)',
    ),
    async (request) => payouts.timeline(request.params.transaction_id, scopeOf(request)),
  );
}
