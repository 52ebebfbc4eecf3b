import { ROUTE_SCHEMAS as R, type RouteRequest } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import type { AuditEntry, AuditService } from '../../services/AuditService.ts';
import { readPage, seqCursor } from '../pageCursor.ts';
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

const auditCursor = seqCursor((e: AuditEntry) => e.id);

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
      const page = await readPage(q, auditCursor, (limit, before) =>
        deps.audit.page({ limit, before, actor: present(q.actor) ? q.actor : undefined }),
      );
      return { ...page, data: page.data.map(auditView) };
    },
  );
}
