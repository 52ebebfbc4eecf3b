import type { RouteRequest } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import type { MerchantService } from '../../services/MerchantService.ts';
import type { WebhookAdminService } from '../../services/WebhookAdminService.ts';
import { AdminError } from '../AdminError.ts';
import { readDeliveries } from '../reads/deliveries.ts';
import { webhookSecretView } from '../views/webhookSecretView.ts';
import { consoleMerchantRoute, merchantOf, scopeOf } from './consoleMerchantOptions.ts';

/** The merchant's webhooks: its deliveries (the operator's reads in its scope), a resend, and its secret. */
export function consoleMerchantWebhookRoutes(
  scope: FastifyInstance,
  deps: { webhookAdmin: WebhookAdminService; merchants: MerchantService },
) {
  const deliveries = readDeliveries(deps);

  scope.get<RouteRequest<'GET /console/api/merchant/webhooks/deliveries'>>(
    '/console/api/merchant/webhooks/deliveries',
    consoleMerchantRoute(
      'GET /console/api/merchant/webhooks/deliveries',
      "The merchant's webhook deliveries with every attempt, newest first",
    ),
    async (request) => deliveries.list(request.query, scopeOf(request)),
  );

  scope.post(
    '/console/api/merchant/webhook-secret/rotate',
    consoleMerchantRoute(
      'POST /console/api/merchant/webhook-secret/rotate',
      'A new webhook secret, shown once; for 24 h deliveries are signed with both (needs X-CSRF-Token)',
      'merchant.webhook_secret.rotate',
    ),
    async (request) => {
      const rotated = await deps.merchants.rotateWebhookSecret(merchantOf(request).id);
      if (!rotated) throw AdminError.notFound('merchant');
      return webhookSecretView(rotated);
    },
  );

  scope.post<RouteRequest<'POST /console/api/merchant/webhooks/deliveries/:id/replay'>>(
    '/console/api/merchant/webhooks/deliveries/:id/replay',
    consoleMerchantRoute(
      'POST /console/api/merchant/webhooks/deliveries/:id/replay',
      'Send one of the merchant’s deliveries again (needs X-CSRF-Token)',
      'merchant.webhook.resend',
    ),
    async (request, reply) => reply.code(202).send(await deliveries.replay(request.params.id, scopeOf(request))),
  );
}
