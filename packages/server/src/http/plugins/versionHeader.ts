import type { FastifyInstance } from 'fastify';
import { versionLabel } from '../../buildInfo.ts';
import type { HealthProbe } from '../../services/HealthProbe.ts';

/** The response header that names the build which answered (docs/operator/upgrading.md, "Which version runs"). */
export const VERSION_HEADER = 'payrail-version';

/**
 * Every answer says which build gave it (`0.1.0+3f9c2ab`), so that during a rolling upgrade a client, a proxy's
 * log or a curl tells which instance's version served a request.
 */
export function registerVersionHeader(app: FastifyInstance, health: HealthProbe) {
  const label = versionLabel(health.identity());
  app.addHook('onSend', async (_request, reply) => {
    reply.header(VERSION_HEADER, label);
  });
}
