import type { FastifyInstance } from 'fastify';
import type { Database } from '../../store/Database.ts';
import type { Metrics } from '../../observability/Metrics.ts';

export function healthRoutes(app: FastifyInstance, deps: { db: Database; metrics: Metrics }) {
  app.get(
    '/healthz',
    { schema: { tags: ['operations'], summary: 'Liveness: the server accepts requests' } },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    { schema: { tags: ['operations'], summary: 'Readiness: the database answers' } },
    async (_request, reply) => {
      try {
        await deps.db.query('SELECT 1');
        return { status: 'ok' };
      } catch {
        return reply.code(503).send({ status: 'unavailable', reason: 'database not reachable' });
      }
    },
  );

  app.get(
    '/metrics',
    { schema: { tags: ['operations'], summary: 'Prometheus metrics', hide: false } },
    async (_request, reply) => {
      reply.header('content-type', deps.metrics.registry.contentType);
      return deps.metrics.registry.metrics();
    },
  );
}
