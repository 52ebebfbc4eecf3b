import rateLimit from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { BeneficiaryVerificationService } from '../services/BeneficiaryVerificationService.ts';
import type { BulkPayoutService } from '../services/BulkPayoutService.ts';
import type { CallbackPolicy } from '../services/CallbackPolicy.ts';
import type { CollectionService } from '../services/CollectionService.ts';
import type { MerchantService } from '../services/MerchantService.ts';
import type { PayoutAdminService } from '../services/PayoutAdminService.ts';
import type { PayoutService } from '../services/PayoutService.ts';
import type { TokenService } from '../services/TokenService.ts';
import type { FailureThrottle } from '../services/FailureThrottle.ts';
import type { HealthProbe } from '../services/HealthProbe.ts';
import type { WebhookAdminService } from '../services/WebhookAdminService.ts';
import type { Metrics } from '../observability/Metrics.ts';
import { requireAdmin } from './plugins/adminAuth.ts';
import { registerBodyParsing } from './plugins/bodyParsing.ts';
import { frameworkErrorHandler, registerErrorHandler } from './plugins/errorHandler.ts';
import { registerGracefulClose } from './plugins/gracefulClose.ts';
import { registerOpenApi } from './plugins/openapi.ts';
import { adminBatchRoutes } from './routes/adminBatchRoutes.ts';
import { adminCollectionRoutes } from './routes/adminCollectionRoutes.ts';
import { bulkRoutes } from './routes/bulkRoutes.ts';
import { adminMerchantRoutes } from './routes/adminMerchantRoutes.ts';
import { adminPayoutRoutes } from './routes/adminPayoutRoutes.ts';
import { adminWebhookRoutes } from './routes/adminWebhookRoutes.ts';
import { payoutRoutes } from './routes/payoutRoutes.ts';
import { sandboxRoutes } from './routes/sandboxRoutes.ts';
import { StatusRateLimit } from './StatusRateLimit.ts';
import { collectionRoutes } from './routes/collectionRoutes.ts';
import { healthRoutes } from './routes/healthRoutes.ts';
import { tokenRoutes } from './routes/tokenRoutes.ts';
import './routeContext.ts';

export interface AppDeps {
  config: Config;
  logger: Logger;
  health: HealthProbe;
  metrics: Metrics;
  /** SHA-256 of the admin token (the token itself is not kept). */
  adminTokenHash: Buffer;
  /** Counts failed admin authentications per client address. */
  adminThrottle: FailureThrottle;
  tokens: TokenService;
  webhookAdmin: WebhookAdminService;
  merchants: MerchantService;
  callbackPolicy: CallbackPolicy;
  payouts: PayoutService;
  payoutAdmin: PayoutAdminService;
  collections: CollectionService;
  bulkPayouts: BulkPayoutService;
  verification: BeneficiaryVerificationService;
  /** Shared rate-limit counters; in-process memory when null. */
  redis: Redis | null;
}

/** A hop count trusts that many proxies nearest to us (Fastify's types know no number; its runtime does this). */
const trustProxyOption = (value: boolean | number | string[]) =>
  typeof value === 'number' ? (_address: string, hop: number) => hop < value : value;

export const BODY_LIMIT_BYTES = 1024 * 1024;

/** The Fastify application: plugins, then thin routes over the services the composition root built. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    // PAYRAIL_TRUST_PROXY: which proxies' X-Forwarded-For names the client (the failure throttles count by it).
    trustProxy: trustProxyOption(deps.config.trustProxy),
    requestIdHeader: 'x-request-id',
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
    frameworkErrors: frameworkErrorHandler,
    // Requests that reach us while we drain are served, not refused (see registerGracefulClose).
    return503OnClosing: false,
  });
  app.decorateRequest('session', null);
  // Every route as registered, so a test can check that the OpenAPI document covers all of them.
  const routeTable: { method: string; url: string; hidden: boolean }[] = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const hidden = Boolean((route.schema as { hide?: boolean } | undefined)?.hide) || route.url.startsWith('/docs');
    for (const method of methods) routeTable.push({ method, url: route.url, hidden });
  });
  registerErrorHandler(app);
  registerGracefulClose(app);
  registerBodyParsing(app);

  await registerOpenApi(app);

  app.addHook('onResponse', async (request, reply) => {
    deps.metrics.httpDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });

  await app.register(rateLimit, {
    global: false,
    enableDraftSpec: true,
    ...(deps.redis ? { redis: deps.redis, nameSpace: `${deps.config.redisPrefix}rl:` } : {}),
  });
  const statusRateLimit = new StatusRateLimit(app, deps.config.rateLimitPerMinute);

  healthRoutes(app, deps);
  tokenRoutes(app, deps);
  payoutRoutes(app, { ...deps, statusRateLimit });
  collectionRoutes(app, { ...deps, statusRateLimit });
  bulkRoutes(app, { ...deps, statusRateLimit });
  if (deps.config.mode === 'sandbox') sandboxRoutes(app, deps);

  await app.register(async (admin) => {
    admin.addHook(
      'onRequest',
      requireAdmin(deps.adminTokenHash, deps.adminThrottle, deps.config.adminFailuresPerAddress),
    );
    admin.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, security: [{ adminAuth: [] }] };
    });
    adminMerchantRoutes(admin, deps);
    adminPayoutRoutes(admin, deps);
    adminWebhookRoutes(admin, deps);
    adminCollectionRoutes(admin, deps);
    adminBatchRoutes(admin, deps);
  });

  return app;
}
