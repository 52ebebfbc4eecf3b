import { ROUTE_SCHEMAS as R } from '@payrail/protocol';
import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../../observability/Metrics.ts';
import type { HealthProbe } from '../../services/HealthProbe.ts';

export function healthRoutes(app: FastifyInstance, deps: { health: HealthProbe; metrics: Metrics }) {
  app.get(
    '/healthz',
    { schema: { tags: ['operations'], summary: 'Liveness: the server accepts requests', ...R['GET /healthz'] } },
    // The build and schema versions too (docs/operator/upgrading.md); never a database round trip.
    async () => ({ status: 'ok', ...deps.health.identity() }),
  );

  app.get(
    '/readyz',
    { schema: { tags: ['operations'], summary: 'Readiness: the database answers', ...R['GET /readyz'] } },
    async (_request, reply) => {
      const [database, redis] = await Promise.all([deps.health.databaseReachable(), deps.health.redisState()]);
      if (!database) return reply.code(503).send({ status: 'unavailable', reason: 'database not reachable' });
      // Redis away is degraded, not unready: taking the instance out of the balancer would not bring Redis back.
      return redis === null ? { status: 'ok' } : { status: 'ok', redis, degraded: redis === 'unreachable' };
    },
  );

  app.get(
    '/metrics',
    { schema: { tags: ['operations'], summary: 'Prometheus metrics', hide: false, ...R['GET /metrics'] } },
    async (_request, reply) => {
      reply.header('content-type', deps.metrics.registry.contentType);
      return deps.metrics.registry.metrics();
    },
  );
}
