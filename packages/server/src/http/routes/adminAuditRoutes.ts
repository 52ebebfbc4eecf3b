import { ROUTE_SCHEMAS as R, type RouteRequest } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import type { AuditEntry, AuditService } from '../../services/AuditService.ts';
import { decodeCursor, pageLimit, pageOf } from '../pageCursor.ts';
import { present } from '../queryParams.ts';
import { adminErrorResponses, adminRouteOptions } from './adminSchemas.ts';

const auditView = (e: AuditEntry) => ({
  id: String(e.id),
  at: e.at.toISOString(),
  actor: e.actor,
  actor_name: e.actorName,
  actor_role: e.actorRole,
  action: e.action,
  target: e.target,
  client_address: e.clientAddress,
  outcome: e.outcome,
  http_status: e.httpStatus,
  detail: e.detail,
  // A counted row: that many refusals from the client address within the minute `at` falls in (1 for one event).
  count: e.count,
});

/** The audit log, newest first: every state-changing operator call, refused ones included. */
export function adminAuditRoutes(app: FastifyInstance, deps: { audit: AuditService }) {
  app.get<RouteRequest<'GET /admin/v1/audit'>>(
    '/admin/v1/audit',
    {
      ...adminRouteOptions,
      schema: {
        tags: ['console'],
        summary: 'The audit log (who, role, action, target, time, client address, outcome), newest first',
        ...R['GET /admin/v1/audit'],
        response: { ...R['GET /admin/v1/audit'].response, ...adminErrorResponses },
      },
    },
    async (request) => {
      const q = request.query;
      const limit = pageLimit(q.limit);
      const before = decodeCursor(q.cursor, (key) => /^[0-9]{1,19}$/.test(key));
      const rows = await deps.audit.page({
        limit: limit + 1,
        before: before === undefined ? undefined : BigInt(before),
        actor: present(q.actor) ? q.actor : undefined,
      });
      const page = pageOf(rows, limit, (e) => String(e.id));
      return { ...page, data: page.data.map(auditView) };
    },
  );
}
