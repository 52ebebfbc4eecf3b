import { ROUTE_SCHEMAS as R, type RouteRequest } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import { parseStatementBound } from '../../domain/statement.ts';
import type { WebhookAdminService } from '../../services/WebhookAdminService.ts';
import { AdminError } from '../AdminError.ts';
import { decodeCursor, pageLimit, pageOf } from '../pageCursor.ts';
import { deliveryView } from '../views/deliveryView.ts';
import { adminErrorResponses, adminRouteOptions } from './adminSchemas.ts';

const INT8_MAX = 9_223_372_036_854_775_807n;

/** Operator routes for webhook deliveries: list with their attempts, and replay. */
export function adminWebhookRoutes(app: FastifyInstance, deps: { webhookAdmin: WebhookAdminService }) {
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
    async (request) => {
      const q = request.query;
      const limit = pageLimit(q.limit);
      // A sequence number is an int8: a cursor beyond it is not one we issued (and would overflow the query).
      const before = decodeCursor(q.cursor, (key) => /^[0-9]{1,19}$/.test(key) && BigInt(key) <= INT8_MAX);
      const rows = await deps.webhookAdmin.page({
        merchantId: q.merchant_id || undefined,
        state: q.state,
        subjectId: q.subject_id || undefined,
        limit: limit + 1,
        before: before === undefined ? undefined : BigInt(before),
      });
      const page = pageOf(rows, limit, (r) => String(r.delivery.seq));
      return { ...page, data: page.data.map((r) => deliveryView(r.delivery, r.attempts)) };
    },
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
    async (request, reply) => {
      const { id } = request.params;
      if (!(await deps.webhookAdmin.replay(id))) throw AdminError.notFound('delivery');
      return reply.code(202).send({ id, state: 'pending' });
    },
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
