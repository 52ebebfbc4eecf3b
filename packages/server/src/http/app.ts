import rateLimit, { type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { BeneficiaryVerificationService } from '../services/BeneficiaryVerificationService.ts';
import type { BulkPayoutService } from '../services/BulkPayoutService.ts';
import type { CallbackPolicy } from '../services/CallbackPolicy.ts';
import type { BankNotifications } from '../services/BankNotifications.ts';
import type { CollectionNotifications } from '../services/CollectionNotifications.ts';
import type { CollectionOutcomes } from '../services/CollectionOutcomes.ts';
import type { CollectionReads } from '../services/CollectionReads.ts';
import type { CollectionSimulator } from '../services/CollectionSimulator.ts';
import type { MerchantCollectionService } from '../services/MerchantCollectionService.ts';
import type { PaymentPageService } from '../services/PaymentPageService.ts';
import type { MerchantService } from '../services/MerchantService.ts';
import type { PayoutAdminService } from '../services/PayoutAdminService.ts';
import type { PayoutService } from '../services/PayoutService.ts';
import type { DepositService } from '../services/DepositService.ts';
import type { ExceptionService } from '../services/ExceptionService.ts';
import type { InvoiceService } from '../services/InvoiceService.ts';
import type { PlatformService } from '../services/PlatformService.ts';
import type { PricingService } from '../services/PricingService.ts';
import type { LienService } from '../services/LienService.ts';
import type { ReconciliationService } from '../services/ReconciliationService.ts';
import type { TokenService } from '../services/TokenService.ts';
import type { FailureThrottle } from '../services/FailureThrottle.ts';
import type { HealthProbe } from '../services/HealthProbe.ts';
import type { WebhookAdminService } from '../services/WebhookAdminService.ts';
import { fallbackRateLimitStore } from './FallbackRateLimitStore.ts';
import { localRateLimitStore } from './LocalRateLimitStore.ts';
import type { Clock } from '../clock.ts';
import type { Metrics } from '../observability/Metrics.ts';
import type { AuditService } from '../services/AuditService.ts';
import type { ConsoleSessionService } from '../services/ConsoleSessionService.ts';
import type { CreditApprovalService } from '../services/CreditApprovalService.ts';
import type { OperatorService } from '../services/OperatorService.ts';
import type { StatsService } from '../services/StatsService.ts';
import type { WalletStatementService } from '../services/WalletStatementService.ts';
import { registerOperatorAuth } from './plugins/operatorAuth.ts';
import { adminAuditRoutes } from './routes/adminAuditRoutes.ts';
import { adminConsoleRoutes } from './routes/adminConsoleRoutes.ts';
import { adminCreditRequestRoutes } from './routes/adminCreditRequestRoutes.ts';
import { adminOperatorRoutes } from './routes/adminOperatorRoutes.ts';
import { consoleMerchantRoutes } from './routes/consoleMerchantRoutes.ts';
import { consoleSessionRoutes } from './routes/consoleSessionRoutes.ts';
import { consoleStaticRoutes } from './routes/consoleStaticRoutes.ts';
import type { SignInThrottle } from '../services/SignInThrottle.ts';
import { registerBodyParsing } from './plugins/bodyParsing.ts';
import { frameworkErrorHandler, registerErrorHandler } from './plugins/errorHandler.ts';
import { registerGracefulClose } from './plugins/gracefulClose.ts';
import { registerOpenApi } from './plugins/openapi.ts';
import { registerSecurityHeaders } from './plugins/securityHeaders.ts';
import { registerVersionHeader } from './plugins/versionHeader.ts';
import { REQUEST_ID_HEADER, requestIds } from './requestId.ts';
import { adminBatchRoutes } from './routes/adminBatchRoutes.ts';
import { adminReconciliationRoutes } from './routes/adminReconciliationRoutes.ts';
import { adminExceptionRoutes } from './routes/adminExceptionRoutes.ts';
import { adminInvoiceRoutes } from './routes/adminInvoiceRoutes.ts';
import { adminPlatformRoutes } from './routes/adminPlatformRoutes.ts';
import { adminPricingRoutes } from './routes/adminPricingRoutes.ts';
import { adminLienRoutes } from './routes/adminLienRoutes.ts';
import { adminSettlementRoutes } from './routes/adminSettlementRoutes.ts';
import { settlementRoutes } from './routes/settlementRoutes.ts';
import type { SettlementService } from '../services/SettlementService.ts';
import { adminBankFileRoutes } from './routes/adminBankFileRoutes.ts';
import type { BankFileService } from '../services/BankFileService.ts';
import { adminCollectionRoutes } from './routes/adminCollectionRoutes.ts';
import { bulkRoutes } from './routes/bulkRoutes.ts';
import { adminDepositRoutes } from './routes/adminDepositRoutes.ts';
import { adminMerchantRoutes } from './routes/adminMerchantRoutes.ts';
import { adminPayoutRoutes } from './routes/adminPayoutRoutes.ts';
import { adminWebhookRoutes } from './routes/adminWebhookRoutes.ts';
import { payoutRoutes } from './routes/payoutRoutes.ts';
import { pspDepositRoutes } from './routes/pspDepositRoutes.ts';
import { pspRoutes } from './routes/pspRoutes.ts';
import { sandboxRoutes } from './routes/sandboxRoutes.ts';
import { StatusRateLimit } from './StatusRateLimit.ts';
import { collectionRoutes } from './routes/collectionRoutes.ts';
import { healthRoutes } from './routes/healthRoutes.ts';
import { registerListenerSplit } from './internalListener.ts';
import { paymentPageRoutes } from './routes/paymentPageRoutes.ts';
import { tokenRoutes } from './routes/tokenRoutes.ts';
import { adminConnectorRoutes } from './routes/adminConnectorRoutes.ts';
import { upstreamWebhookRoutes } from './routes/upstreamWebhookRoutes.ts';
import type { TreasuryService } from '../services/TreasuryService.ts';
import type { UpstreamWebhooks } from '../services/UpstreamWebhooks.ts';
import type { RouteTableEntry } from './routeContext.ts';
import { rememberingCompilers } from './compiledSchemas.ts';

export interface AppDeps {
  config: Config;
  /** The composition root's clock: whatever the HTTP layer reads of the time. */
  clock: Clock;
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
  /** Collections by audience; every change of status goes through collectionOutcomes. */
  collections: CollectionReads;
  merchantCollections: MerchantCollectionService;
  collectionSimulator: CollectionSimulator;
  paymentPages: PaymentPageService;
  collectionOutcomes: CollectionOutcomes;
  bulkPayouts: BulkPayoutService;
  verification: BeneficiaryVerificationService;
  /** Shared rate-limit counters; in-process memory when null. */
  redis: Redis | null;
  bankNotifications: BankNotifications;
  collectionNotifications: CollectionNotifications;
  /** The console (docs/operator/console.md). */
  operators: OperatorService;
  consoleSessions: ConsoleSessionService;
  signInThrottle: SignInThrottle;
  audit: AuditService;
  creditApproval: CreditApprovalService;
  statements: WalletStatementService;
  stats: StatsService;
  /** Connectors and the upstream treasury (GET /admin/v1/connectors). */
  treasury: TreasuryService;
  /** The upstream's webhooks, when PAYRAIL_UPSTREAM_WEBHOOK_SECRET is set. */
  upstreamWebhooks: UpstreamWebhooks | null;
  /** Bank statement reconciliation (docs/operator/reconciliation.md). */
  reconciliation: ReconciliationService;
  /** The exceptions queue (docs/operator/exceptions.md). */
  exceptions: ExceptionService;
  /** Virtual accounts and deposits (docs/merchant/funding-a-wallet.md). */
  deposits: DepositService;
  /** Bank files cut and received (docs/operator/bank-files.md). */
  bankFiles: BankFileService;
  /** Monthly GST tax invoices (docs/operator/charging-merchants.md, "Tax invoices"). */
  invoices: InvoiceService;
  /** The platform's wallets and fee reports (docs/operator/charging-merchants.md). */
  platform: PlatformService;
  /** Pricing plans (docs/operator/charging-merchants.md), and the GST rate fees are charged with. */
  pricing: PricingService;
  gstRateBp: number;
  /** Liens on wallets (docs/operator/liens.md). */
  liens: LienService;
  /** Settlements of collections to the merchant's bank account (docs/operator/settlements.md). */
  settlements: SettlementService;
}

/** A hop count trusts that many proxies nearest to us (Fastify's types know no number; its runtime does this). */
const trustProxyOption = (value: boolean | number | string[]) =>
  typeof value === 'number' ? (_address: string, hop: number) => hop < value : value;

/**
 * The merchant API's paths (tokens, payouts, collections, sandbox). The provider documents its base URL with
 * `/api/` at the end and integrations mix both forms, so each of these is served at the root and under `/api`;
 * admin, console, PSP and operational paths are not.
 */
const MERCHANT_PATHS = ['/v1/auth/', '/payout/', '/collection/', '/settlement/', '/sandbox/'];

/**
 * `/api/payout/v1/initiate` is `/payout/v1/initiate`: one registration of every route, the same handlers,
 * limits, metrics and schemas for both spellings (Fastify rewrites before routing).
 */
export function merchantApiPath(url: string): string {
  if (!url.startsWith('/api/')) return url;
  const rest = url.slice(4);
  return MERCHANT_PATHS.some((path) => rest.startsWith(path)) ? rest : url;
}

/** SECURITY.md: a body over 64 KiB is 4000 with HTTP 413 (the bulk route sets its own, larger limit). */
export const BODY_LIMIT_BYTES = 64 * 1024;
/** How long a request may take to arrive whole, from its first byte. */
export const REQUEST_TIMEOUT_MS = 30_000;

/** The Fastify application: plugins, then thin routes over the services the composition root built. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    // PAYRAIL_TRUST_PROXY: which proxies' X-Forwarded-For names the client (the failure throttles count by it).
    trustProxy: trustProxyOption(deps.config.trustProxy),
    // A client's X-Request-Id when it is sound, else ours, unique across instances (requestId.ts); echoed below.
    requestIdHeader: false,
    genReqId: requestIds(),
    rewriteUrl: (request) => merchantApiPath(request.url ?? '/'),
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
    // Fastify's validators and response serializers, each compiled once per process (compiledSchemas.ts).
    schemaController: { compilersFactory: rememberingCompilers() },
    frameworkErrors: frameworkErrorHandler,
    // Requests that reach us while we drain are served, not refused (see registerGracefulClose).
    return503OnClosing: false,
    // Fastify's default is no limit: a client that stalls mid-request would hold its connection for ever (408).
    requestTimeout: REQUEST_TIMEOUT_MS,
  });
  app.decorateRequest('session', null);
  app.decorateRequest('actor', null);
  app.decorateRequest('consoleMerchant', null);
  app.decorateRequest('auditNote', null);
  // Every route as registered, so a test can check that the OpenAPI document covers all of them.
  const routeTable: RouteTableEntry[] = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const hidden = Boolean((route.schema as { hide?: boolean } | undefined)?.hide) || route.url.startsWith('/docs');
    // The schema is read when asked: onRoute hooks of inner scopes (the admin security) replace it after this one.
    for (const method of methods) {
      routeTable.push({
        method,
        url: route.url,
        hidden,
        get schema() {
          return route.schema;
        },
      });
    }
  });
  registerErrorHandler(app);
  registerGracefulClose(app, deps.config.shutdownGraceMs);
  registerBodyParsing(app);
  // Before any route or plugin, so that every answer inherits the headers.
  await registerSecurityHeaders(app, deps.config);
  registerVersionHeader(app, deps.health);
  app.addHook('onSend', async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
  });

  await registerOpenApi(app, { publicUrl: deps.config.publicUrl, serve: deps.config.openapi });
  // PAYRAIL_ADMIN_LISTEN: the main listener keeps the public routes only (internalListener.ts).
  if (deps.config.adminListen) registerListenerSplit(app);

  app.addHook('onResponse', async (request, reply) => {
    deps.metrics.httpDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });

  await app.register(rateLimit, {
    global: false,
    enableDraftSpec: true,
    // Counters in Redis (shared by every instance), in process memory while Redis is unreachable; in memory, on
    // the server's clock.
    store: (deps.redis
      ? fallbackRateLimitStore(deps.redis, `${deps.config.redisPrefix}rl:`, deps.clock)
      : localRateLimitStore(deps.clock)) as unknown as FastifyRateLimitStoreCtor,
  });
  const statusRateLimit = new StatusRateLimit(app, deps.config.rateLimitPerMinute);

  healthRoutes(app, deps);
  tokenRoutes(app, deps);
  payoutRoutes(app, { ...deps, statusRateLimit });
  collectionRoutes(app, { ...deps, statusRateLimit });
  settlementRoutes(app, { ...deps, statusRateLimit });
  bulkRoutes(app, { ...deps, statusRateLimit });
  if (deps.config.mode === 'sandbox') sandboxRoutes(app, deps);
  paymentPageRoutes(app, { paymentPages: deps.paymentPages, sandbox: deps.config.mode === 'sandbox' });
  // Signed PSP/bank notifications (docs/operator/live-mode.md): only when the operator has set their secret.
  if (deps.config.pspNotifySecret) await pspRoutes(app, { ...deps, secret: deps.config.pspNotifySecret });
  if (deps.config.pspNotifySecret) await pspDepositRoutes(app, { ...deps, secret: deps.config.pspNotifySecret });
  if (deps.upstreamWebhooks) await upstreamWebhookRoutes(app, { upstreamWebhooks: deps.upstreamWebhooks });

  await app.register(async (admin) => {
    // The admin token, or an operator's console session with its CSRF header; then the route's role; audited.
    registerOperatorAuth(admin, deps);
    admin.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, security: [{ adminAuth: [] }] };
    });
    adminMerchantRoutes(admin, deps);
    adminDepositRoutes(admin, deps);
    adminPayoutRoutes(admin, deps);
    adminWebhookRoutes(admin, deps);
    adminCollectionRoutes(admin, deps);
    adminOperatorRoutes(admin, deps);
    adminAuditRoutes(admin, deps);
    adminCreditRequestRoutes(admin, deps);
    adminConsoleRoutes(admin, deps);
    adminBatchRoutes(admin, deps);
    adminConnectorRoutes(admin, deps);
    adminReconciliationRoutes(admin, deps);
    adminExceptionRoutes(admin, deps);
    adminBankFileRoutes(admin, deps);
    adminInvoiceRoutes(admin, deps);
    adminPlatformRoutes(admin, deps);
    adminPricingRoutes(admin, deps);
    adminLienRoutes(admin, deps);
    adminSettlementRoutes(admin, deps);
  });

  consoleSessionRoutes(app, deps);
  consoleMerchantRoutes(app, deps);
  consoleStaticRoutes(app);

  return app;
}
