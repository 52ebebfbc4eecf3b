import type { Config } from './configShape.ts';
import { ConfigError } from './configError.ts';
import { loadConnectorSettings } from './connectorConfig.ts';
import { loadInvoicePrefix, loadInvoiceSupplier } from './invoiceConfig.ts';
import { loadRedisSentinel, SENTINEL_DEFAULT_NAME } from './redisConfig.ts';
import { loadVirtualAccounts } from './virtualAccountConfig.ts';
import { listenAddress } from './listenAddress.ts';
import {
  bankCodes,
  daysOrOff,
  baseUrl,
  directory,
  duration,
  durations,
  flag,
  istDays,
  key32,
  liveSecret,
  oneOf,
  onOff,
  optionalText,
  percentBp,
  proxyTrust,
  rupees,
  signingSecret,
  text,
  wholeNumber,
  type Mode,
  type SettingContext,
  type SettingType,
} from './settingTypes.ts';

/** One environment variable, as the settings reference lists it. */
export interface Variable {
  name: string;
  /** What it sets, in one line. */
  doc: string;
  /** The value of an unset variable as an operator would write it; null when there is none or the doc line says. */
  fallback: string | null;
}

/** A row of the table: the variables it reads and the fields of Config it makes of them. */
export interface Setting<K extends keyof Config> {
  keys: readonly K[];
  variables: readonly Variable[];
  read(env: NodeJS.ProcessEnv, ctx: SettingContext): Pick<Config, K>;
}

/** What every row is, whichever fields it makes. */
interface AnySetting {
  keys: readonly (keyof Config)[];
  variables: readonly Variable[];
  read(env: NodeJS.ProcessEnv, ctx: SettingContext): Partial<Config>;
}

/** A field of Config read from one variable of the given type. */
function one<K extends keyof Config>(key: K, name: string, type: SettingType<Config[K]>, doc: string): Setting<K> {
  return {
    keys: [key],
    variables: [{ name, doc, fallback: type.fallback }],
    read: (env, ctx) => ({ [key]: type.parse(name, env[name], ctx) }) as Pick<Config, K>,
  };
}

/** Fields made of several variables that are checked together (by their own loader). */
function several<K extends keyof Config>(
  keys: readonly K[],
  variables: readonly Variable[],
  read: Setting<K>['read'],
): Setting<K> {
  return { keys, variables, read };
}

/**
 * The table with a compile-time check that its rows make every field of Config: a missing field turns the argument's
 * type into one that asks for a `missing` property naming it.
 */
function table<const T extends readonly AnySetting[]>(
  rows: T &
    ([Exclude<keyof Config, T[number]['keys'][number]>] extends [never]
      ? unknown
      : { missing: Exclude<keyof Config, T[number]['keys'][number]> }),
): T {
  return rows;
}

const MODE = oneOf<Mode>(['sandbox', 'live'], 'sandbox');

/**
 * PAYRAIL_MODE, which other settings' defaults and checks depend on: read (and refused) before them. Its own
 * parse depends on no mode; the context passed is a placeholder.
 */
export const readMode = (env: NodeJS.ProcessEnv): Mode =>
  MODE.parse('PAYRAIL_MODE', env.PAYRAIL_MODE, { mode: 'sandbox' });

const masterKey = key32();

/** The master key is required in live mode; the previous one, while a rotation runs, only beside another one. */
function masterKeys(env: NodeJS.ProcessEnv, { mode }: SettingContext): Pick<Config, 'masterKey' | 'masterKeyPrevious'> {
  const current = masterKey.parse('PAYRAIL_MASTER_KEY', env.PAYRAIL_MASTER_KEY, { mode });
  const previous = masterKey.parse('PAYRAIL_MASTER_KEY_PREVIOUS', env.PAYRAIL_MASTER_KEY_PREVIOUS, { mode });
  if (mode === 'live' && !current) {
    throw new ConfigError('PAYRAIL_MASTER_KEY', 'required in live mode (secrets at rest are sealed under it)');
  }
  if (previous && !current) throw new ConfigError('PAYRAIL_MASTER_KEY_PREVIOUS', 'set without PAYRAIL_MASTER_KEY');
  if (previous && current?.equals(previous)) {
    throw new ConfigError('PAYRAIL_MASTER_KEY_PREVIOUS', 'is the same key as PAYRAIL_MASTER_KEY');
  }
  return { masterKey: current, masterKeyPrevious: previous };
}

/** Variables of a loader that owns their parsing and defaults (its doc page gives them). */
const ownedBy = (doc: string, ...names: string[]): Variable[] => names.map((name) => ({ name, doc, fallback: null }));

/**
 * Every setting of the server: the environment variable(s), how each is parsed and checked, its default and a line
 * saying what it does. loadConfig reads PAYRAIL_MODE first, then the rows in this order: with several bad variables,
 * the first one here is the one reported. The settings reference (docs/operator/configuration.md) must list every
 * variable (test/ci/settingsDocs.test.ts).
 */
export const SETTINGS = table([
  one('port', 'PORT', wholeNumber(8080), 'listen port'),
  one('host', 'HOST', text('127.0.0.1'), 'listen address'),
  one('databaseUrl', 'DATABASE_URL', optionalText(), 'postgres://… selects PostgreSQL; unset, embedded PGlite'),
  one('dataDir', 'PAYRAIL_DATA_DIR', directory('./data'), 'embedded database, its lock and the generated admin token'),
  one('redisUrl', 'REDIS_URL', optionalText(), 'Redis of the counters shared by every instance'),
  several(
    ['redisSentinel'],
    [
      { name: 'PAYRAIL_REDIS_SENTINELS', doc: 'host:port,… of the sentinels: Redis through Sentinel', fallback: null },
      { name: 'PAYRAIL_REDIS_SENTINEL_NAME', doc: 'master group name', fallback: SENTINEL_DEFAULT_NAME },
      { name: 'PAYRAIL_REDIS_PASSWORD', doc: 'password of the Redis nodes behind Sentinel', fallback: null },
      { name: 'PAYRAIL_REDIS_SENTINEL_PASSWORD', doc: 'password of the sentinels', fallback: null },
    ],
    (env) => ({ redisSentinel: loadRedisSentinel(env) }),
  ),
  one('redisPrefix', 'PAYRAIL_REDIS_PREFIX', text('payrail:'), 'prefix of every Redis key'),
  one('mode', 'PAYRAIL_MODE', MODE, 'sandbox simulates the bank rail; live moves money through the connectors'),
  one('adminToken', 'PAYRAIL_ADMIN_TOKEN', liveSecret(), 'bearer token of the admin API; unset, generated once'),
  one('sandboxStepMs', 'PAYRAIL_SANDBOX_STEP_MS', wholeNumber(1500), 'delay of each step of the sandbox rail'),
  one('tokenTtlSeconds', 'PAYRAIL_TOKEN_TTL_SECONDS', wholeNumber(300, 1), 'merchant token lifetime'),
  one(
    'rateLimitPerMinute',
    'PAYRAIL_RATE_LIMIT_PER_MINUTE',
    wholeNumber(200, 1),
    'status requests per merchant and endpoint a minute',
  ),
  one(
    'webhookRetryScheduleMs',
    'PAYRAIL_WEBHOOK_RETRY_SCHEDULE',
    durations('5s,30s,2m,10m,30m,1h,2h,4h,8h,16h,24h'),
    'delays between webhook delivery attempts',
  ),
  one(
    'webhookAllowPrivate',
    'PAYRAIL_WEBHOOK_ALLOW_PRIVATE',
    flag((mode) => mode === 'sandbox'),
    'callback URLs may resolve to private addresses; default true in sandbox, false in live',
  ),
  one('webhookTimeoutMs', 'PAYRAIL_WEBHOOK_TIMEOUT_MS', wholeNumber(10_000, 1), 'how long a receiver has to answer'),
  one('logLevel', 'LOG_LEVEL', text('info'), 'pino log level'),
  one('collectionTtlMs', 'PAYRAIL_COLLECTION_TTL', duration('30m'), 'how long a collection waits for payment'),
  one('jwtSecret', 'PAYRAIL_JWT_SECRET', liveSecret(), 'token signing secret; unset, generated once'),
  one(
    'tokenFailuresPerKey',
    'PAYRAIL_TOKEN_FAILURES_PER_KEY',
    wholeNumber(10, 1),
    'failed token requests per API key in 15 minutes',
  ),
  one(
    'tokenFailuresPerAddress',
    'PAYRAIL_TOKEN_FAILURES_PER_ADDRESS',
    wholeNumber(50, 1),
    'failed token requests per client address in 15 minutes',
  ),
  one('banksDown', 'PAYRAIL_BANKS_DOWN', bankCodes(), 'live mode: bank codes down for maintenance (4014)'),
  one('banksBlocked', 'PAYRAIL_BANKS_BLOCKED', bankCodes(), 'live mode: bank codes not allowed (4015)'),
  one('workerPollMs', 'PAYRAIL_WORKER_POLL_MS', wholeNumber(200, 10), 'how often the worker looks for due work'),
  one(
    'workerLeaseMs',
    'PAYRAIL_WORKER_LEASE_MS',
    wholeNumber(60_000, 1000),
    'how long claimed work stays reserved for its instance',
  ),
  one(
    'worker',
    'PAYRAIL_WORKER',
    onOff(true),
    'off: serve requests but run no background work (no payout steps, bank files, webhooks, settlement runs)',
  ),
  one('buildCommit', 'PAYRAIL_BUILD_COMMIT', optionalText(), 'the commit this build reports; unset, read from .git'),
  one(
    'shutdownGraceMs',
    'PAYRAIL_SHUTDOWN_GRACE_MS',
    wholeNumber(10_000, 0),
    'how long a stopping server waits for in-flight requests before it closes their connections',
  ),
  one(
    'stuckPayoutMinutes',
    'PAYRAIL_STUCK_PAYOUT_MINUTES',
    wholeNumber(60, 1),
    'a payout PROCESSING or PENDING this many minutes counts as stuck (payrail_payouts_stuck)',
  ),
  one('openapi', 'PAYRAIL_OPENAPI', onOff(true), 'off: no /docs, /docs/json or /openapi.json'),
  one(
    'adminListen',
    'PAYRAIL_ADMIN_LISTEN',
    listenAddress(),
    'host:port of a second listener for the admin API and the console; the main one then serves merchants only',
  ),
  one('consoleSessionTtlMs', 'PAYRAIL_CONSOLE_SESSION_TTL', duration('8h'), 'console session lifetime'),
  one(
    'creditApprovalAbove',
    'PAYRAIL_CREDIT_APPROVAL_ABOVE',
    rupees('100000.00'),
    'operator credits above this (rupees in 24 h) wait for a second operator',
  ),
  one('gstRateBp', 'PAYRAIL_GST_RATE', percentBp('18'), 'GST charged on every fee, in percent'),
  one(
    'bankHolidays',
    'PAYRAIL_BANK_HOLIDAYS',
    istDays(),
    'IST dates (comma-separated, e.g. 2026-12-25) without a daily settlement run, besides Sundays',
  ),
  one(
    'settlementScanMs',
    'PAYRAIL_SETTLEMENT_SCAN_MS',
    wholeNumber(5000, 100),
    'how often each instance looks for due settlements (daily runs, instant settlements)',
  ),
  one(
    'retentionDays',
    'PAYRAIL_RETENTION_DAYS',
    daysOrOff(90),
    'days a delivered webhook delivery and its attempts are kept; off (or 0): kept forever',
  ),
  one(
    'requirePricing',
    'PAYRAIL_REQUIRE_PRICING',
    flag(false),
    'refuse payouts and collection requests (4015) of a merchant without a pricing plan',
  ),
  several(
    ['invoiceSupplier'],
    [
      {
        name: 'PAYRAIL_OPERATOR_LEGAL_NAME',
        doc: "the operator's registered name, the supplier on tax invoices",
        fallback: null,
      },
      {
        name: 'PAYRAIL_OPERATOR_GSTIN',
        doc: "the operator's GSTIN (check character verified at start)",
        fallback: null,
      },
      { name: 'PAYRAIL_OPERATOR_ADDRESS', doc: "the operator's address on tax invoices", fallback: null },
      { name: 'PAYRAIL_OPERATOR_STATE', doc: "the operator's two-digit GST state code (the GSTIN's)", fallback: null },
    ],
    (env) => ({ invoiceSupplier: loadInvoiceSupplier(env) }),
  ),
  several(
    ['virtualAccounts'],
    [
      {
        name: 'PAYRAIL_VA_PREFIX',
        doc: 'what virtual account numbers start with (1 to 6 digits; the wallet number and a Luhn check digit follow)',
        fallback: '9988',
      },
      {
        name: 'PAYRAIL_VA_IFSC',
        doc: 'IFSC of the bank holding the virtual accounts; default SBOX0VA0001 in sandbox, in live none are shown until set',
        fallback: null,
      },
    ],
    (env, { mode }) => ({ virtualAccounts: loadVirtualAccounts(env, mode) }),
  ),
  several(
    ['invoicePrefix'],
    [
      {
        name: 'PAYRAIL_INVOICE_PREFIX',
        doc: 'what tax invoice numbers start with (INV/2026-27/000001)',
        fallback: 'INV',
      },
    ],
    (env) => ({ invoicePrefix: loadInvoicePrefix(env) }),
  ),
  one(
    'consoleSignInFailures',
    'PAYRAIL_CONSOLE_SIGNIN_FAILURES',
    wholeNumber(20, 1),
    'failed console sign-ins per client address in 15 minutes',
  ),
  one(
    'dbConnectTimeoutMs',
    'PAYRAIL_DB_CONNECT_TIMEOUT_MS',
    wholeNumber(5_000),
    'PostgreSQL: longest wait for a connection; 0, none',
  ),
  one(
    'dbStatementTimeoutMs',
    'PAYRAIL_DB_STATEMENT_TIMEOUT_MS',
    wholeNumber(15_000),
    'PostgreSQL: longest statement; 0, none',
  ),
  one(
    'allowSandboxDataInLive',
    'PAYRAIL_ALLOW_SANDBOX_DATA_IN_LIVE',
    flag(false),
    'start live on a database used as a sandbox',
  ),
  one(
    'webhookDnsTimeoutMs',
    'PAYRAIL_WEBHOOK_DNS_TIMEOUT_MS',
    wholeNumber(2000, 1),
    "time limit of a webhook's DNS lookup",
  ),
  one(
    'merchantCacheMs',
    'PAYRAIL_MERCHANT_CACHE_MS',
    wholeNumber(1000),
    'how long a merchant read is reused for token checks; 0, never',
  ),
  one(
    'pgPreparedStatements',
    'PAYRAIL_PG_PREPARED_STATEMENTS',
    flag(true),
    'PostgreSQL: named prepared statements (false behind PgBouncer < 1.21)',
  ),
  one(
    'trustProxy',
    'PAYRAIL_TRUST_PROXY',
    proxyTrust(),
    'proxies whose X-Forwarded-For names the client: true, a hop count or addresses/CIDRs; unset, none',
  ),
  one(
    'adminFailuresPerAddress',
    'PAYRAIL_ADMIN_FAILURES_PER_ADDRESS',
    wholeNumber(20, 1),
    'failed admin authentications per client address in 15 minutes',
  ),
  one('publicUrl', 'PAYRAIL_PUBLIC_URL', baseUrl(), 'external base URL of links; unset, the listen address'),
  one(
    'pspNotifySecret',
    'PAYRAIL_PSP_NOTIFY_SECRET',
    signingSecret(),
    'HMAC key of the signed notification routes; unset, no routes',
  ),
  several(
    ['masterKey', 'masterKeyPrevious'],
    [
      {
        name: 'PAYRAIL_MASTER_KEY',
        doc: 'base64 of 32 bytes sealing secrets at rest; required in live',
        fallback: null,
      },
      { name: 'PAYRAIL_MASTER_KEY_PREVIOUS', doc: 'the key before, while a rotation runs', fallback: null },
    ],
    masterKeys,
  ),
  several(
    ['connectors'],
    [
      ...ownedBy(
        'connectors of payouts and per-mode routes (connectorConfig.ts)',
        'PAYRAIL_CONNECTOR',
        'PAYRAIL_CONNECTOR_ROUTES',
      ),
      ...ownedBy(
        'the upstream connector (connectorConfig.ts)',
        'PAYRAIL_UPSTREAM_URL',
        'PAYRAIL_UPSTREAM_API_KEY',
        'PAYRAIL_UPSTREAM_SECRET_KEY',
        'PAYRAIL_UPSTREAM_WALLET_ID',
        'PAYRAIL_UPSTREAM_SCHEME',
        'PAYRAIL_UPSTREAM_WEBHOOK_SECRET',
        'PAYRAIL_UPSTREAM_POLL',
        'PAYRAIL_UPSTREAM_RETRY_FOR',
        'PAYRAIL_UPSTREAM_TIMEOUT',
      ),
      ...ownedBy(
        'the bankfile connector (bankFileConfig.ts)',
        'PAYRAIL_BANKFILE_DIR',
        'PAYRAIL_BANKFILE_SFTP_URL',
        'PAYRAIL_BANKFILE_SFTP_KEY_FILE',
        'PAYRAIL_BANKFILE_SFTP_HOST_KEY',
        'PAYRAIL_BANKFILE_CUTOFFS',
        'PAYRAIL_BANKFILE_SCAN',
        'PAYRAIL_BANKFILE_DEBTOR_NAME',
        'PAYRAIL_BANKFILE_DEBTOR_ACCOUNT',
        'PAYRAIL_BANKFILE_DEBTOR_IFSC',
        'PAYRAIL_BANKFILE_INITIATING_PARTY',
      ),
    ],
    (env, { mode }) => ({ connectors: loadConnectorSettings(env, mode) }),
  ),
]);

/** Every variable of the table, in its order. */
export const SETTING_VARIABLES: readonly Variable[] = SETTINGS.flatMap((row) => row.variables);
