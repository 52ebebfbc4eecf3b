import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { defaultPublicUrl, type Config } from './config.ts';
import { generateSecretToken } from './domain/credentials.ts';
import { PASSWORD_COST, type ScryptCost } from './domain/passwordHash.ts';
import { buildApp } from './http/app.ts';
import { InternalListener } from './http/internalListener.ts';
import {
  FallbackCounterStore,
  MemoryCounterStore,
  RedisCounterStore,
  type CounterStore,
} from './store/CounterStore.ts';
import { Metrics } from './observability/Metrics.ts';
import { ADMIN_FAILURE_WINDOW_MS, adminThrottled, adminTokenHash } from './http/plugins/adminAuth.ts';
import { FailureThrottle } from './services/FailureThrottle.ts';
import { HealthProbe, type InstanceIdentity } from './services/HealthProbe.ts';
import { resolveBuildInfo } from './buildInfo.ts';
import { newestMigrationVersion } from './store/migrate.ts';
import { readSchemaVersion } from './store/schemaVersion.ts';
import { WebhookAdminService } from './services/WebhookAdminService.ts';
import { BacklogProbe } from './services/BacklogProbe.ts';
import { RedisProbe } from './services/RedisProbe.ts';
import { SANDBOX_BANK_RULES, type BankRules } from './domain/bankRules.ts';
import { PayoutStepper } from './jobs/PayoutStepper.ts';
import { WebhookDispatcher } from './jobs/WebhookDispatcher.ts';
import { Worker } from './jobs/Worker.ts';
import type { BankConnector } from './rails/BankConnector.ts';
import { ManualConnector } from './rails/ManualConnector.ts';
import { SandboxConnector } from './rails/SandboxConnector.ts';
import { ConnectorRegistry } from './rails/ConnectorRegistry.ts';
import { ConnectorHealth } from './services/ConnectorHealth.ts';
import { TreasuryService } from './services/TreasuryService.ts';
import { UpstreamWebhooks } from './services/UpstreamWebhooks.ts';
import { UpstreamConnector } from './rails/upstream/UpstreamConnector.ts';
import { UpstreamCollections } from './rails/upstream/UpstreamCollections.ts';
import { UPSTREAM_COLLECTION_JOB, UpstreamCollectionService } from './services/UpstreamCollectionService.ts';
import { BankFileConnector } from './rails/bankfile/BankFileConnector.ts';
import { BankFileCutoff } from './jobs/BankFileCutoff.ts';
import { BankFileInbox } from './jobs/BankFileInbox.ts';
import { BankFileService } from './services/BankFileService.ts';
import type { AccountVerifier } from './rails/AccountVerifier.ts';
import { SandboxAccountVerifier } from './rails/SandboxAccountVerifier.ts';
import { BeneficiaryVerificationService } from './services/BeneficiaryVerificationService.ts';
import { BulkPayoutService } from './services/BulkPayoutService.ts';
import { BankDirectory } from './services/BankDirectory.ts';
import { BankNotifications } from './services/BankNotifications.ts';
import { checkDatabaseMode } from './services/databaseMode.ts';
import { CallbackPolicy } from './services/CallbackPolicy.ts';
import { CollectionNotifications } from './services/CollectionNotifications.ts';
import { CollectionOutcomes } from './services/CollectionOutcomes.ts';
import { CollectionReads } from './services/CollectionReads.ts';
import { CollectionSimulator } from './services/CollectionSimulator.ts';
import { MerchantCollectionService } from './services/MerchantCollectionService.ts';
import { PaymentPageService } from './services/PaymentPageService.ts';
import { PayoutAdminService } from './services/PayoutAdminService.ts';
import { PayoutLifecycle } from './services/PayoutLifecycle.ts';
import { PayoutService } from './services/PayoutService.ts';
import { MerchantService } from './services/MerchantService.ts';
import { TokenService } from './services/TokenService.ts';
import { AuditService } from './services/AuditService.ts';
import { ConsoleSessionService } from './services/ConsoleSessionService.ts';
import { CreditApprovalService } from './services/CreditApprovalService.ts';
import { OperatorService } from './services/OperatorService.ts';
import { StatsService } from './services/StatsService.ts';
import { DepositService } from './services/DepositService.ts';
import { BankFileDeposits } from './services/BankFileDeposits.ts';
import { ExceptionService } from './services/ExceptionService.ts';
import { ReturnToSender } from './services/ReturnToSender.ts';
import { InvoiceService } from './services/InvoiceService.ts';
import { PlatformService } from './services/PlatformService.ts';
import { PricingService } from './services/PricingService.ts';
import { LienService } from './services/LienService.ts';
import { ReconciliationService } from './services/ReconciliationService.ts';
import { WalletStatementService } from './services/WalletStatementService.ts';
import { SignInThrottle } from './services/SignInThrottle.ts';
import { signInThrottled } from './http/plugins/operatorAuth.ts';
import type { Database } from './store/Database.ts';
import { JobRepository, type Job } from './store/repositories/JobRepository.ts';
import { WebhookRepository } from './store/repositories/WebhookRepository.ts';
import { openDatabase } from './store/openDatabase.ts';
import { createRedis } from './store/redisClient.ts';
import { ConfigError } from './config.ts';
import { prepareSecretsAtRest } from './services/SecretsAtRest.ts';
import { PgliteVacuum } from './store/PgliteVacuum.ts';
import { SettlementService } from './services/SettlementService.ts';
import { LedgerClosings } from './jobs/LedgerClosings.ts';
import { Retention } from './jobs/Retention.ts';
import { SettlementScheduler } from './jobs/SettlementScheduler.ts';
import { MerchantRepository } from './store/repositories/MerchantRepository.ts';
import { SecretBox, SecretUnreadable } from './store/SecretBox.ts';
import { systemClock, type Clock } from './clock.ts';

export interface PayrailServer {
  app: FastifyInstance;
  db: Database;
  config: Config;
  /**
   * The admin token when it was generated (it is in the operator's file `<data dir>/admin-token` anyway), so the
   * caller may show it; a configured token is not kept, only its hash.
   */
  generatedAdminToken?: string;
  /** True when the admin token was generated (not configured), so the caller may say where it is. */
  adminTokenGenerated: boolean;
  /**
   * True when this start wrote the token file (the first start of the data directory, or one after the file was
   * removed): the only start that shows the token itself; later ones say where it is.
   */
  adminTokenCreated: boolean;
  worker: Worker;
  /** The worker's retention of delivered webhook deliveries (PAYRAIL_RETENTION_DAYS); tests run a pass by hand. */
  retention: Retention;
  /** The worker's closing of ledger days for statements' opening balances (migration 044); tests run a pass by hand. */
  ledgerClosings: LedgerClosings;
  /** Where a bank connector's notification handler reports outcomes (docs/internals/connector-interface.md). */
  bankNotifications: BankNotifications;
  /** Where a PSP integration reports collection outcomes (docs/operator/live-mode.md). */
  collectionNotifications: CollectionNotifications;
  /** The version, commit and schema versions this instance reports (`/healthz`, the start log). */
  identity(): InstanceIdentity;
  /** Starts listening and the background worker (unless PAYRAIL_WORKER=off). */
  listen(): Promise<string>;
  /** Where the admin API and the console listen with PAYRAIL_ADMIN_LISTEN (known once listening); else null. */
  adminAddress(): string | null;
  close(): Promise<void>;
}

export interface ServerOptions {
  logger: Logger;
  /** PostgreSQL schema to use (tests). */
  schema?: string;
  /** Use this database instead of opening one (tests share one PGlite per file). */
  db?: Database;
  /** Replace the bank connector (tests of live-mode behaviour); default from PAYRAIL_MODE. */
  rail?: BankConnector;
  /**
   * Replace the account verifier (docs/merchant/bulk-and-verification.md); default: the sandbox's in sandbox mode, none in live mode
   * (verification then answers 4013 "not available"). Null means none.
   */
  accountVerifier?: AccountVerifier | null;
  /** Do not start the background worker (tests that drive it by hand). */
  noWorker?: boolean;
  /** The clock every part of the server reads the time from; default: the system's (tests move one of their own). */
  clock?: Clock;
  /** The scrypt cost of operator passwords; default PASSWORD_COST (tests: TEST_PASSWORD_COST, domain/passwordHash.ts). */
  passwordCost?: ScryptCost;
}

/** Sandbox: DOWN and BLOK. Live: PAYRAIL_BANKS_DOWN / PAYRAIL_BANKS_BLOCKED (comma-separated bank codes). */
function bankRulesFor(config: Config): BankRules {
  if (config.mode === 'sandbox') return SANDBOX_BANK_RULES;
  return { down: new Set(config.banksDown), blocked: new Set(config.banksBlocked) };
}

/**
 * The connectors of PAYRAIL_CONNECTOR and PAYRAIL_CONNECTOR_ROUTES (docs/operator/connectors.md). `replacement`
 * (tests) stands in for the default connector.
 */
function buildConnectors(
  config: Config,
  replacement: BankConnector | undefined,
  publicUrl: () => string,
  clock: Clock,
): ConnectorRegistry {
  const { connectors: settings } = config;
  if (replacement) return new ConnectorRegistry([replacement], replacement.name);
  const all: BankConnector[] = [new ManualConnector()];
  if (config.mode === 'sandbox') all.push(new SandboxConnector(config.sandboxStepMs));
  if (settings.upstream) all.push(new UpstreamConnector(settings.upstream, publicUrl, clock));
  if (settings.bankfile) all.push(new BankFileConnector(settings.bankfile));
  return new ConnectorRegistry(all, settings.defaultConnector, settings.routes);
}

/** The admin token: configured, or generated once and kept in the data directory. */
async function resolveAdminToken(config: Config): Promise<{ token: string; generated: boolean; created: boolean }> {
  if (config.adminToken) return { token: config.adminToken, generated: false, created: false };
  const path = join(config.dataDir, 'admin-token');
  const existing = (await readFile(path, 'utf8').catch(() => '')).trim();
  if (existing) return { token: existing, generated: true, created: false };
  await mkdir(config.dataDir, { recursive: true });
  const token = `padm_${generateSecretToken()}`;
  const created = await writeFile(path, `${token}\n`, { mode: 0o600, flag: 'wx' }).then(
    () => true,
    (err) => {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      return false;
    },
  );
  return { token: (await readFile(path, 'utf8')).trim(), generated: true, created };
}

/** Composition root: builds the services once and hands them to the HTTP app and the background jobs. */
export async function createServer(config: Config, options: ServerOptions): Promise<PayrailServer> {
  // The one clock: everything below that reads the time is handed this one (src/clock.ts).
  const clock = options.clock ?? systemClock;
  const db =
    options.db ??
    (await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      schema: options.schema,
      connectTimeoutMs: config.dbConnectTimeoutMs,
      statementTimeoutMs: config.dbStatementTimeoutMs,
      preparedStatements: config.pgPreparedStatements,
      logger: options.logger,
    }));
  const ownsDb = options.db === undefined;
  // Before anything else touches it: a sandbox database must not start live unnoticed (docs/operator/operations.md).
  await checkDatabaseMode(db, config.mode, config.allowSandboxDataInLive, clock).catch(async (err) => {
    if (ownsDb) await db.close();
    throw err;
  });
  // Secrets at rest (docs/operator/secrets-at-rest.md): a wrong or missing master key stops the start here, and values
  // still in plain text are sealed under the master key.
  const box = config.masterKey ? SecretBox.withKeys(config.masterKey, config.masterKeyPrevious) : SecretBox.plain();
  await prepareSecretsAtRest(db, box).catch(async (err) => {
    if (ownsDb) await db.close();
    throw err instanceof SecretUnreadable ? new ConfigError('PAYRAIL_MASTER_KEY', err.message) : err;
  });
  const merchantRepository = new MerchantRepository(box);
  // What this instance is (docs/operator/upgrading.md): the build, and the schema it ships against the database's.
  const build = resolveBuildInfo(config.buildCommit);
  // The files' names, not their SQL: the start has just migrated and needs only the number.
  const buildSchema = await newestMigrationVersion();
  // Background work runs unless a test drives it by hand or the operator turned it off (a restored copy).
  const runWorker = !options.noWorker && config.worker;
  const health = new HealthProbe(db, build, buildSchema, await readSchemaVersion(db), runWorker);
  if (db.engine === 'pglite' && ownsDb) {
    // The data-dir lock makes this the only process on the database: leases left by a crashed one are void.
    await JobRepository.voidLeases(db);
    await WebhookRepository.voidLeases(db);
  }
  const redis = createRedis(config);
  // An outage is survivable (counters fall back to process memory); say so in the log, not as an unhandled event:
  // once per outage (ioredis reports every reconnection attempt), and again when it is back. /readyz and
  // payrail_redis_up say it for as long as it lasts.
  let redisDown = false;
  redis?.on('error', (err: Error) => {
    if (redisDown) return;
    redisDown = true;
    options.logger.warn({ err: err.message }, 'redis unreachable; counting on this instance alone until it is back');
  });
  redis?.on('ready', () => {
    if (!redisDown) return;
    redisDown = false;
    options.logger.info('redis reachable again');
  });
  // With Redis the failure counters are shared; while Redis is unreachable each instance counts alone.
  const counters: CounterStore = redis
    ? new FallbackCounterStore(redis, new RedisCounterStore(redis, config.redisPrefix), new MemoryCounterStore(clock))
    : new MemoryCounterStore(clock);
  const admin = await resolveAdminToken(config);
  const adminHash = adminTokenHash(admin.token);
  // From here on only the hash of a configured admin token is kept (a generated one is in the operator's file).
  config = { ...config, adminToken: undefined };
  const metrics = new Metrics();
  metrics.buildInfo.set({ version: build.version, commit: build.commit }, 1);
  metrics.readSchema = () => health.identity().schema;
  const tokens = await TokenService.create(db, {
    ttlSeconds: config.tokenTtlSeconds,
    configuredSecret: config.jwtSecret,
    counters,
    failuresPerKey: config.tokenFailuresPerKey,
    failuresPerAddress: config.tokenFailuresPerAddress,
    secrets: box,
    merchantCacheMs: config.merchantCacheMs,
    clock,
  });
  const merchants = new MerchantService(db, clock, (merchant) => tokens.merchantChanged(merchant), merchantRepository);
  const callbackPolicy = new CallbackPolicy(config.webhookAllowPrivate, {
    dnsTimeoutMs: Math.min(config.webhookDnsTimeoutMs, config.webhookTimeoutMs),
  });
  // The upstream's webhooks come back to the public URL, known once listening (read when a payout is submitted).
  const connectors = buildConnectors(config, options.rail, () => publicUrl, clock);
  // FAILED → REFUNDED is decided here for every rail: one sandbox step (docs/merchant/api-reference.md, "The sandbox"), at once in live mode.
  const lifecycle = new PayoutLifecycle(connectors, metrics, {
    refundDelayMs: config.mode === 'sandbox' ? config.sandboxStepMs : 0,
    clock,
  });
  const bankNotifications = new BankNotifications(db, lifecycle, clock);
  const banks = new BankDirectory(config.mode === 'live');
  const accountVerifier =
    options.accountVerifier !== undefined
      ? options.accountVerifier
      : config.mode === 'sandbox'
        ? new SandboxAccountVerifier()
        : null;
  const verification = new BeneficiaryVerificationService(db, accountVerifier, banks, clock);
  const payouts = new PayoutService(
    db,
    connectors,
    bankRulesFor(config),
    banks,
    callbackPolicy,
    metrics,
    verification,
    clock,
    { gstRateBp: config.gstRateBp, requirePricing: config.requirePricing },
  );
  const bulkPayouts = new BulkPayoutService(db, payouts, callbackPolicy, metrics, clock);
  const payoutAdmin = new PayoutAdminService(db, lifecycle, config.mode);
  // Payment-page links: PAYRAIL_PUBLIC_URL, else the listen address (its port is known once listening: PORT=0).
  let publicUrl = config.publicUrl ?? defaultPublicUrl(config.host, config.port);
  const collectionOutcomes = new CollectionOutcomes(db, metrics, {
    mode: config.mode,
    publicUrl: () => publicUrl,
    clock,
    gstRateBp: config.gstRateBp,
  });
  const connectorHealth = new ConnectorHealth(clock);
  // Collections go upstream when the upstream is the default connector (docs/operator/connectors.md, "Collections through the upstream").
  const upstreamForCollections = connectors.get('upstream');
  const upstreamCollections =
    upstreamForCollections instanceof UpstreamConnector &&
    connectors.defaultConnector === upstreamForCollections &&
    config.connectors.upstream
      ? new UpstreamCollectionService(
          db,
          new UpstreamCollections(upstreamForCollections.client, config.connectors.upstream, () => publicUrl),
          config.connectors.upstream,
          collectionOutcomes,
          connectorHealth,
          clock,
        )
      : null;
  const collections = new CollectionReads(db, () => publicUrl);
  const merchantCollections = new MerchantCollectionService(db, callbackPolicy, {
    mode: config.mode,
    ttlMs: config.collectionTtlMs,
    publicUrl: () => publicUrl,
    upstream: upstreamCollections,
    clock,
    requirePricing: config.requirePricing,
  });
  const collectionSimulator = new CollectionSimulator(db, collectionOutcomes, () => publicUrl);
  const paymentPages = new PaymentPageService(db, collectionSimulator, config.mode);
  const collectionNotifications = new CollectionNotifications(db, collectionOutcomes);
  const stepper = new PayoutStepper(db, connectors, lifecycle, clock, connectorHealth, config.workerLeaseMs / 2);
  const treasury = new TreasuryService(db, connectors, connectorHealth, clock);
  metrics.refreshConnectors = () => treasury.refreshMetrics(metrics);
  const upstream = connectors.get('upstream');
  const upstreamWebhookSecret = config.connectors.upstream?.webhookSecret;
  const upstreamWebhooks =
    upstream instanceof UpstreamConnector && upstreamWebhookSecret
      ? new UpstreamWebhooks(db, upstream.client, upstreamWebhookSecret, bankNotifications, upstreamCollections)
      : null;
  const dispatcher = new WebhookDispatcher(
    db,
    callbackPolicy,
    metrics,
    options.logger,
    {
      retryScheduleMs: config.webhookRetryScheduleMs,
      timeoutMs: config.webhookTimeoutMs,
      publicUrl: () => publicUrl,
      clock,
    },
    merchantRepository,
  );
  const handlers = {
    // A claim's payout steps run together (PayoutStepper.runBatch).
    'payout.advance': stepper,
    'collection.expire': (job: Job) => collectionOutcomes.expire(job),
    ...(upstreamCollections ? { [UPSTREAM_COLLECTION_JOB]: (job: Job) => upstreamCollections.run(job) } : {}),
  };
  const worker = new Worker(db, handlers, dispatcher, options.logger, {
    pollMs: config.workerPollMs,
    // Deliveries are claimed, read and recorded together (WebhookDispatcher.deliverMany): a claim of 128 keeps a
    // backlog draining while each receiver's answers come in over kept-alive connections.
    maxDeliveries: 128,
    maxJobs: 32,
    webhookTimeoutMs: config.webhookTimeoutMs,
    leaseMs: config.workerLeaseMs,
  });

  // Bank statements are imported over the admin API and from the bank-file inbox alike (docs/operator/reconciliation.md).
  const reconciliation = new ReconciliationService(db, clock, config.virtualAccounts.prefix);
  // Reports that do not match what Payrail sent, and reconciliation's exceptions (docs/operator/exceptions.md).
  // Virtual accounts and deposits (docs/merchant/funding-a-wallet.md); finance assigns their exceptions to wallets.
  const deposits = new DepositService(db, {
    virtualAccounts: config.virtualAccounts,
    gstRateBp: config.gstRateBp,
    clock,
  });
  const exceptions = new ExceptionService(
    db,
    payoutAdmin,
    bankNotifications,
    clock,
    deposits,
    new ReturnToSender(connectors, lifecycle, banks, clock),
  );
  // Settlements of collections to each merchant's account (docs/operator/settlements.md), paid by ordinary payouts.
  const settlements = new SettlementService(
    db,
    merchantRepository,
    connectors,
    banks,
    verification,
    new Set(config.bankHolidays),
    clock,
  );
  metrics.readExceptions = () => exceptions.openByKind();
  metrics.backlog = new BacklogProbe(db, config.stuckPayoutMinutes * 60_000);
  const redisProbe = new RedisProbe(redis);
  metrics.readRedis = () => redisProbe.reachable();
  health.watchRedis(redisProbe);
  const app = await buildApp({
    config,
    clock,
    logger: options.logger,
    health,
    metrics,
    adminTokenHash: adminHash,
    adminThrottle: new FailureThrottle(counters, ADMIN_FAILURE_WINDOW_MS, adminThrottled),
    tokens,
    webhookAdmin: new WebhookAdminService(db),
    merchants,
    callbackPolicy,
    payouts,
    payoutAdmin,
    collections,
    merchantCollections,
    collectionSimulator,
    paymentPages,
    collectionOutcomes,
    bulkPayouts,
    verification,
    redis,
    bankNotifications,
    collectionNotifications,
    operators: new OperatorService(db, clock, options.passwordCost ?? PASSWORD_COST),
    consoleSessions: new ConsoleSessionService(db, config.consoleSessionTtlMs, merchantRepository, clock),
    signInThrottle: new SignInThrottle(counters, config.consoleSignInFailures, signInThrottled),
    audit: new AuditService(db),
    creditApproval: new CreditApprovalService(db, merchants, config.creditApprovalAbove, clock),
    statements: new WalletStatementService(db, clock),
    stats: new StatsService(db, clock),
    treasury,
    upstreamWebhooks,
    reconciliation,
    exceptions,
    deposits,
    pricing: new PricingService(db, clock),
    liens: new LienService(db, config.creditApprovalAbove, clock),
    gstRateBp: config.gstRateBp,
    bankFiles: new BankFileService(db),
    invoices: new InvoiceService(
      db,
      { supplier: config.invoiceSupplier, prefix: config.invoicePrefix, gstRateBp: config.gstRateBp },
      clock,
    ),
    platform: new PlatformService(db, clock),
    settlements,
  });

  // Bank files (docs/operator/bank-files.md): the cut-off and the inbox run beside the worker, started by listen().
  const bankFile = connectors.get('bankfile');
  const bankFileJobs =
    bankFile instanceof BankFileConnector
      ? {
          cutoff: new BankFileCutoff(
            db,
            lifecycle,
            bankFile.transport,
            bankFile.settings.debtor,
            bankFile.settings.cutoffs,
            options.logger,
            clock,
          ),
          inbox: new BankFileInbox(
            db,
            lifecycle,
            bankNotifications,
            reconciliation,
            bankFile.transport,
            bankFile.settings.scanMs,
            options.logger,
            clock,
            new BankFileDeposits({ virtualAccounts: config.virtualAccounts, gstRateBp: config.gstRateBp, clock }),
          ),
          transport: bankFile.transport,
        }
      : null;

  const settlementScheduler = new SettlementScheduler(settlements, config.settlementScanMs, options.logger);
  const retention = new Retention(db, clock, options.logger, {
    days: config.retentionDays,
    onRemoved: (removed) => {
      metrics.retentionRemoved.inc({ kind: 'deliveries' }, removed.deliveries);
      metrics.retentionRemoved.inc({ kind: 'attempts' }, removed.attempts);
    },
  });

  const ledgerClosings = new LedgerClosings(db, options.logger);

  // PGlite has no autovacuum (single-user PostgreSQL): the server vacuums the tables it churns itself.
  const vacuum = new PgliteVacuum(db, (err) => options.logger.warn({ err }, 'PGlite vacuum pass failed'));
  let closed = false;
  // PAYRAIL_ADMIN_LISTEN: the admin API and the console on a second address (http/internalListener.ts).
  const internalListener = config.adminListen ? new InternalListener(app) : null;
  let adminAddress: string | null = null;
  return {
    app,
    db,
    config,
    ...(admin.generated ? { generatedAdminToken: admin.token } : {}),
    adminTokenGenerated: admin.generated,
    adminTokenCreated: admin.created,
    worker,
    retention,
    ledgerClosings,
    bankNotifications,
    collectionNotifications,
    identity: () => health.identity(),
    adminAddress: () => adminAddress,
    async listen() {
      const address = await app.listen({ port: config.port, host: config.host });
      const bound = app.server.address();
      if (!config.publicUrl && bound && typeof bound === 'object')
        publicUrl = defaultPublicUrl(config.host, bound.port);
      if (internalListener && config.adminListen) {
        adminAddress = await internalListener.listen(config.adminListen).catch(async (err: unknown) => {
          await app.close();
          throw err;
        });
      }
      if (runWorker) worker.start();
      vacuum.start();
      if (runWorker) {
        settlementScheduler.start();
        retention.start();
        ledgerClosings.start();
        bankFileJobs?.cutoff.start();
        bankFileJobs?.inbox.start();
      }
      return address;
    },
    async close() {
      if (closed) return;
      closed = true;
      // Stop taking requests and finish in-flight ones (on both listeners), then let the worker finish its steps.
      await Promise.all([app.close(), internalListener?.close(config.shutdownGraceMs)]);
      await worker.stop();
      await vacuum.stop();
      await settlementScheduler.stop();
      await retention.stop();
      await ledgerClosings.stop();
      await bankFileJobs?.cutoff.stop();
      await bankFileJobs?.inbox.stop();
      await bankFileJobs?.transport.close();
      redis?.disconnect();
      if (ownsDb) await db.close();
    },
  };
}
