import { ROUTE_SCHEMAS as R, type RouteRequest } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import { parseStatementBound } from '../../domain/statement.ts';
import type { WebhookAdminService } from '../../services/WebhookAdminService.ts';
import { AdminError } from '../AdminError.ts';
import { readDeliveries } from '../reads/deliveries.ts';
import { adminErrorResponses, adminRouteOptions } from './adminSchemas.ts';

/** Operator routes for webhook deliveries: list with their attempts, and replay. */
export function adminWebhookRoutes(app: FastifyInstance, deps: { webhookAdmin: WebhookAdminService }) {
  const deliveries = readDeliveries(deps);
  app.get<RouteRequest<'GET /admin/v1/webhooks/deliveries'>>(
    '/admin/v1/webhooks/deliveries',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['admin'],
        summary: 'List webhook deliveries (newest first) with every attempt',
        ...R['GET /admin/v1/webhooks/deliveries'],
        response: { ...R['GET /admin/v1/webhooks/deliveries'].response, ...adminErrorResponses },
      },
    },
    async (request) => deliveries.list(request.query, 'operator'),
  );

  app.post<RouteRequest<'POST /admin/v1/webhooks/deliveries/:id/replay'>>(
    '/admin/v1/webhooks/deliveries/:id/replay',
    {
      ...adminRouteOptions,
      config: { ...adminRouteOptions.config, role: 'finance', audit: 'webhook.replay' },
      schema: {
        tags: ['admin'],
        summary: 'Send a delivery again now (same webhook-id; receivers deduplicate)',
        ...R['POST /admin/v1/webhooks/deliveries/:id/replay'],
        response: { ...R['POST /admin/v1/webhooks/deliveries/:id/replay'].response, ...adminErrorResponses },
      },
    },
    async (request, reply) => reply.code(202).send(await deliveries.replay(request.params.id, 'operator')),
  );

  app.post<RouteRequest<'POST /admin/v1/webhooks/deliveries/replay'>>(
    '/admin/v1/webhooks/deliveries/replay',
    {
      ...adminRouteOptions,
      config: { ...adminRouteOptions.config, role: 'finance', audit: 'webhook.replay_failed' },
      schema: {
        tags: ['admin'],
        summary: 'Send again every failed delivery of a merchant created at or after `since`',
        ...R['POST /admin/v1/webhooks/deliveries/replay'],
        response: { ...R['POST /admin/v1/webhooks/deliveries/replay'].response, ...adminErrorResponses },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const since = parseStatementBound(body.since, 'from');
      if (!since) throw AdminError.invalid('since must be an ISO date-time or YYYY-MM-DD');
      const ids = await deps.webhookAdmin.replayFailed(body.merchant_id, since);
      request.auditNote = `${ids.length} deliveries queued again`;
      return reply.code(202).send({ replayed: ids.length, ids });
    },
  );
}
