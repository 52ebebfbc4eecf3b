import type { ConnectorSettings } from './connectorConfig.ts';
import type { InvoiceSupplierSettings } from './invoiceConfig.ts';
import type { RedisSentinelSettings } from './redisConfig.ts';
import type { VirtualAccountSettings } from './virtualAccountConfig.ts';
import type { Mode } from './settingTypes.ts';
import type { ListenAddress } from './listenAddress.ts';

/**
 * The server's settings, all optional in the environment. Each field is made by a row of the settings table
 * (configSchema.ts), which names its variable, default and checks; docs/operator/configuration.md lists them.
 * It lives apart from config.ts (which loads it through the table) so that the table and the loader do not import
 * each other: config.ts re-exports it.
 */
export interface Config {
  port: number;
  host: string;
  databaseUrl?: string;
  dataDir: string;
  redisUrl?: string;
  /** Redis through Sentinel (PAYRAIL_REDIS_SENTINELS, redisConfig.ts) instead of REDIS_URL's single node. */
  redisSentinel?: RedisSentinelSettings;
  /** Prefix of every Redis key, so that several deployments (or test runs) can share one Redis. */
  redisPrefix: string;
  mode: Mode;
  adminToken?: string;
  sandboxStepMs: number;
  tokenTtlSeconds: number;
  rateLimitPerMinute: number;
  /** Delays before the 2nd, 3rd, … delivery attempt, in milliseconds. */
  webhookRetryScheduleMs: number[];
  webhookAllowPrivate: boolean;
  webhookTimeoutMs: number;
  logLevel: string;
  /** How long an INITIATED collection waits for payment before it fails. */
  collectionTtlMs: number;
  /** Optional fixed JWT signing secret; otherwise one is generated once and kept in the database. */
  jwtSecret?: string;
  /** Failed token requests allowed per API key and per client address in a 15-minute window. */
  tokenFailuresPerKey: number;
  tokenFailuresPerAddress: number;
  /** Live mode: bank codes (an IFSC's first four letters) down for maintenance (4014) or not allowed (4015). */
  banksDown: string[];
  banksBlocked: string[];
  /** Poll interval of the background worker. */
  workerPollMs: number;
  /**
   * How long a claimed job stays reserved for the worker that claimed it (a delivery: this plus the webhook
   * timeout). After a crash, what the dead process held waits this long before any instance takes it again.
   */
  workerLeaseMs: number;
  /**
   * PAYRAIL_WORKER: false serves requests but runs no background work (no payout steps, bank files, webhook
   * deliveries or settlement runs): a restored copy that must not move money until told to.
   */
  worker: boolean;
  /** PAYRAIL_BUILD_COMMIT: the commit the build says it is (buildInfo.ts); unset, read from the checkout. */
  buildCommit: string | undefined;
  /** SIGTERM: how long in-flight HTTP requests may take before their connections are closed. */
  shutdownGraceMs: number;
  /** PAYRAIL_STUCK_PAYOUT_MINUTES: a payout PROCESSING or PENDING this long counts in payrail_payouts_stuck. */
  stuckPayoutMinutes: number;
  /** PAYRAIL_OPENAPI: false serves neither /docs nor /openapi.json. */
  openapi: boolean;
  /**
   * PAYRAIL_ADMIN_LISTEN: a second address for the admin API and the console (and everything else); the main one
   * then serves only the merchant API, payment pages, PSP notifications and /healthz, /readyz.
   */
  adminListen: ListenAddress | undefined;
  /** How long a console sign-in lasts (PAYRAIL_CONSOLE_SESSION_TTL, default 8h). */
  consoleSessionTtlMs: number;
  /** Operator credits above this many paise wait for a second operator (PAYRAIL_CREDIT_APPROVAL_ABOVE). */
  creditApprovalAbove: bigint;
  /** GST on fees in hundredths of a percent (PAYRAIL_GST_RATE, default 18 → 1800). */
  gstRateBp: number;
  /** IST days without a daily settlement run besides Sundays (PAYRAIL_BANK_HOLIDAYS). */
  bankHolidays: string[];
  /** How often the settlement scheduler looks for due settlements (PAYRAIL_SETTLEMENT_SCAN_MS, default 5000). */
  settlementScanMs: number;
  /**
   * Days a delivered webhook delivery is kept after its delivery before the worker removes it with its attempts
   * (PAYRAIL_RETENTION_DAYS, default 90); null: kept forever (`off` or `0`).
   */
  retentionDays: number | null;
  /** A merchant without a pricing plan is refused payouts and collections with 4015 (PAYRAIL_REQUIRE_PRICING). */
  requirePricing: boolean;
  /** Virtual accounts (PAYRAIL_VA_PREFIX, PAYRAIL_VA_IFSC): the IFSC null in live mode until it is set. */
  virtualAccounts: VirtualAccountSettings;
  /** The operator as the supplier of tax invoices (PAYRAIL_OPERATOR_*); invoices wait until all four are set. */
  invoiceSupplier: InvoiceSupplierSettings;
  /** What tax invoice numbers start with (PAYRAIL_INVOICE_PREFIX, default INV). */
  invoicePrefix: string;
  /** Failed console sign-ins allowed per client address in 15 minutes (PAYRAIL_CONSOLE_SIGNIN_FAILURES). */
  consoleSignInFailures: number;
  /** PostgreSQL: longest wait for a connection (new, or a free one of the pool); 0 = no limit. */
  dbConnectTimeoutMs: number;
  /**
   * PostgreSQL: longest a statement may take; the client gives up then (a server that no longer answers), and
   * PostgreSQL's statement_timeout cancels a little earlier (pgDatabase.ts); 0 = no limit.
   */
  dbStatementTimeoutMs: number;
  /**
   * PAYRAIL_ALLOW_SANDBOX_DATA_IN_LIVE: start in live mode on a database that was used in sandbox mode (its
   * simulated money and payouts stay). Refused by default (docs/operator/operations.md).
   */
  allowSandboxDataInLive: boolean;
  /** Time limit of a webhook's DNS lookup, inside the delivery timeout (never more than it). */
  webhookDnsTimeoutMs: number;
  /** PostgreSQL: named prepared statements (PAYRAIL_PG_PREPARED_STATEMENTS; off behind PgBouncer < 1.21). */
  pgPreparedStatements: boolean;
  /** How long a merchant read for a token check is reused (PAYRAIL_MERCHANT_CACHE_MS; 0: read every time). */
  merchantCacheMs: number;
  /**
   * PAYRAIL_TRUST_PROXY: which proxies' X-Forwarded-For gives the client address (Fastify `trustProxy`):
   * false (trust nothing), true (any), a hop count, or addresses/CIDRs.
   */
  trustProxy: boolean | number | string[];
  /** Failed admin authentications allowed per client address in a 15-minute window. */
  adminFailuresPerAddress: number;
  /**
   * External base URL (PAYRAIL_PUBLIC_URL) of payment-page links, without a trailing slash; unset: the listen
   * address, known once the server listens (see defaultPublicUrl).
   */
  publicUrl?: string;
  /**
   * PAYRAIL_PSP_NOTIFY_SECRET: the HMAC key of the signed notification routes (/psp/v1/…, docs/operator/live-mode.md);
   * unset, the routes do not exist.
   */
  pspNotifySecret?: string;
  /**
   * PAYRAIL_MASTER_KEY (32 bytes): secrets at rest are sealed under it (docs/operator/secrets-at-rest.md). Optional in the
   * sandbox, required in live mode.
   */
  masterKey?: Buffer;
  /** PAYRAIL_MASTER_KEY_PREVIOUS: still opens values sealed under it while a master-key rotation runs. */
  masterKeyPrevious?: Buffer;
  /** PAYRAIL_CONNECTOR, PAYRAIL_CONNECTOR_ROUTES and each connector's own settings (connectorConfig.ts). */
  connectors: ConnectorSettings;
}
