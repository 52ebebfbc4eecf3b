import { parseRupees } from '@payrail/protocol';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { loadRedisSentinel, type RedisSentinelSettings } from './redisConfig.ts';
import { loadConnectorSettings, type ConnectorSettings } from './connectorConfig.ts';

export type Mode = 'sandbox' | 'live';

/** Every setting of README.md, "Configuration" plus a few of our own; all optional in the environment. */
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
  /** How long a console sign-in lasts (PAYRAIL_CONSOLE_SESSION_TTL, default 8h). */
  consoleSessionTtlMs: number;
  /** Operator credits above this many paise wait for a second operator (PAYRAIL_CREDIT_APPROVAL_ABOVE). */
  creditApprovalAbove: bigint;
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

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses "5s,30s,2m,1h" (units ms, s, m, h, d) into milliseconds. */
export function parseDurations(variable: string, text: string): number[] {
  return text.split(',').map((part) => {
    const m = /^\s*(\d+)\s*(ms|s|m|h|d)\s*$/.exec(part);
    if (!m) throw new ConfigError(variable, `"${part}" is not a duration like 30s, 2m or 1h`);
    return Number(m[1]) * (UNITS[m[2] as string] as number);
  });
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new ConfigError(name, `expected a whole number ≥ ${min}`);
  return Number(raw);
}

function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name]?.toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['true', '1', 'yes'].includes(raw)) return true;
  if (['false', '0', 'no'].includes(raw)) return false;
  throw new ConfigError(name, 'expected true or false');
}

/** "hdfc, icic" → ["HDFC", "ICIC"] */
function bankCodes(env: NodeJS.ProcessEnv, name: string): string[] {
  const codes = (env[name] ?? '')
    .split(',')
    .map((s) => s.trim().toUpperCase())
    .filter(Boolean);
  const bad = codes.find((c) => !/^[A-Z]{4}$/.test(c));
  if (bad) throw new ConfigError(name, `"${bad}" is not a bank code (the four letters that start an IFSC)`);
  return codes;
}

/** Decimal rupees (like "100000.00", or 0) as paise. */
function rupeesSetting(env: NodeJS.ProcessEnv, name: string, fallback: string): bigint {
  const raw = env[name] || fallback;
  if (/^0+(\.0{1,2})?$/.test(raw)) return 0n;
  const paise = parseRupees(raw);
  if (paise === null) throw new ConfigError(name, 'expected rupees like 100000.00');
  return paise;
}

/** Proxy-addr's names for address ranges, accepted in PAYRAIL_TRUST_PROXY beside addresses and CIDRs. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** PAYRAIL_TRUST_PROXY (SECURITY.md): unset = trust nothing; `true`, a hop count, or addresses/CIDRs. */
export function parseTrustProxy(raw: string | undefined): boolean | number | string[] {
  const text = (raw ?? '').trim();
  if (text === '' || text.toLowerCase() === 'false') return false;
  if (text.toLowerCase() === 'true') return true;
  if (/^\d+$/.test(text)) return Number(text);
  const entries = text.split(',').map((s) => s.trim());
  for (const entry of entries) {
    const [address, prefix, ...rest] = entry.split('/');
    const family = isIP(address ?? '');
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 6 ? 128 : 32));
    if (PROXY_RANGE_NAMES.has(entry)) continue;
    if (!family || !prefixOk || rest.length) {
      throw new ConfigError(
        'PAYRAIL_TRUST_PROXY',
        `"${entry}" is not true, a hop count, an address, a CIDR or one of loopback, linklocal, uniquelocal`,
      );
    }
  }
  return entries;
}

/** Live mode: a configured admin token or JWT secret must be long enough not to be guessed (SECURITY.md). */
const MIN_SECRET_CHARS = 32;

function liveSecret(env: NodeJS.ProcessEnv, name: string, mode: Mode): string | undefined {
  const value = nonEmpty(env[name]);
  if (mode === 'live' && value !== undefined && value.length < MIN_SECRET_CHARS) {
    throw new ConfigError(name, `must be at least ${MIN_SECRET_CHARS} characters in live mode`);
  }
  return value;
}

/** An absolute http(s) URL without query, fragment or credentials; trailing slashes removed. */
export function parsePublicUrl(variable: string, text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(variable, `"${text}" is not an absolute URL like https://pay.example.com`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(variable, 'must be an http(s) URL');
  if (url.username || url.password || url.search || url.hash) {
    throw new ConfigError(variable, 'must not carry credentials, a query or a fragment');
  }
  return url.href.replace(/\/+$/, '');
}

/**
 * The listen address as a base URL: a wildcard host (0.0.0.0, ::) becomes the loopback address, which at least
 * works on the machine itself; an IPv6 address is bracketed.
 */
export function defaultPublicUrl(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${name.includes(':') ? `[${name}]` : name}:${port}`;
}

/** A notification signing secret: unset, or at least 32 characters (a guessable key would let anyone credit). */
function pspSecret(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (raw.length < 32) throw new ConfigError(name, 'expected at least 32 characters');
  return raw;
}

/** A master key: base64 (standard or url-safe alphabet) of exactly 32 bytes. */
function masterKey(env: NodeJS.ProcessEnv, name: string): Buffer | undefined {
  const raw = nonEmpty(env[name]?.trim());
  if (raw === undefined) return undefined;
  const bytes = /^[A-Za-z0-9+/_-]+={0,2}$/.test(raw) ? Buffer.from(raw, 'base64') : Buffer.alloc(0);
  if (bytes.length !== 32) {
    throw new ConfigError(name, 'expected base64 of exactly 32 bytes (e.g. `openssl rand -base64 32`)');
  }
  return bytes;
}

function masterKeys(env: NodeJS.ProcessEnv, mode: Mode): Pick<Config, 'masterKey' | 'masterKeyPrevious'> {
  const current = masterKey(env, 'PAYRAIL_MASTER_KEY');
  const previous = masterKey(env, 'PAYRAIL_MASTER_KEY_PREVIOUS');
  if (mode === 'live' && !current) {
    throw new ConfigError('PAYRAIL_MASTER_KEY', 'required in live mode (secrets at rest are sealed under it)');
  }
  if (previous && !current) throw new ConfigError('PAYRAIL_MASTER_KEY_PREVIOUS', 'set without PAYRAIL_MASTER_KEY');
  if (previous && current?.equals(previous)) {
    throw new ConfigError('PAYRAIL_MASTER_KEY_PREVIOUS', 'is the same key as PAYRAIL_MASTER_KEY');
  }
  return { masterKey: current, masterKeyPrevious: previous };
}

const nonEmpty = (value: string | undefined) => (value === undefined || value === '' ? undefined : value);

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const mode = (env.PAYRAIL_MODE || 'sandbox') as Mode;
  if (mode !== 'sandbox' && mode !== 'live') throw new ConfigError('PAYRAIL_MODE', 'expected sandbox or live');
  return {
    port: int(env, 'PORT', 8080),
    host: env.HOST || '127.0.0.1',
    databaseUrl: nonEmpty(env.DATABASE_URL),
    dataDir: resolve(env.PAYRAIL_DATA_DIR || './data'),
    redisUrl: nonEmpty(env.REDIS_URL),
    redisSentinel: loadRedisSentinel(env),
    redisPrefix: env.PAYRAIL_REDIS_PREFIX || 'payrail:',
    mode,
    adminToken: liveSecret(env, 'PAYRAIL_ADMIN_TOKEN', mode),
    sandboxStepMs: int(env, 'PAYRAIL_SANDBOX_STEP_MS', 1500),
    tokenTtlSeconds: int(env, 'PAYRAIL_TOKEN_TTL_SECONDS', 300, 1),
    rateLimitPerMinute: int(env, 'PAYRAIL_RATE_LIMIT_PER_MINUTE', 200, 1),
    webhookRetryScheduleMs: parseDurations(
      'PAYRAIL_WEBHOOK_RETRY_SCHEDULE',
      env.PAYRAIL_WEBHOOK_RETRY_SCHEDULE || '5s,30s,2m,10m,30m,1h,2h,4h,8h,16h,24h',
    ),
    webhookAllowPrivate: bool(env, 'PAYRAIL_WEBHOOK_ALLOW_PRIVATE', mode === 'sandbox'),
    webhookTimeoutMs: int(env, 'PAYRAIL_WEBHOOK_TIMEOUT_MS', 10_000, 1),
    logLevel: env.LOG_LEVEL || 'info',
    collectionTtlMs: parseDurations('PAYRAIL_COLLECTION_TTL', env.PAYRAIL_COLLECTION_TTL || '30m')[0] as number,
    jwtSecret: liveSecret(env, 'PAYRAIL_JWT_SECRET', mode),
    tokenFailuresPerKey: int(env, 'PAYRAIL_TOKEN_FAILURES_PER_KEY', 10, 1),
    tokenFailuresPerAddress: int(env, 'PAYRAIL_TOKEN_FAILURES_PER_ADDRESS', 50, 1),
    banksDown: bankCodes(env, 'PAYRAIL_BANKS_DOWN'),
    banksBlocked: bankCodes(env, 'PAYRAIL_BANKS_BLOCKED'),
    workerPollMs: int(env, 'PAYRAIL_WORKER_POLL_MS', 200, 10),
    workerLeaseMs: int(env, 'PAYRAIL_WORKER_LEASE_MS', 60_000, 1000),
    consoleSessionTtlMs: parseDurations(
      'PAYRAIL_CONSOLE_SESSION_TTL',
      env.PAYRAIL_CONSOLE_SESSION_TTL || '8h',
    )[0] as number,
    creditApprovalAbove: rupeesSetting(env, 'PAYRAIL_CREDIT_APPROVAL_ABOVE', '100000.00'),
    consoleSignInFailures: int(env, 'PAYRAIL_CONSOLE_SIGNIN_FAILURES', 20, 1),
    dbConnectTimeoutMs: int(env, 'PAYRAIL_DB_CONNECT_TIMEOUT_MS', 5_000),
    dbStatementTimeoutMs: int(env, 'PAYRAIL_DB_STATEMENT_TIMEOUT_MS', 15_000),
    allowSandboxDataInLive: bool(env, 'PAYRAIL_ALLOW_SANDBOX_DATA_IN_LIVE', false),
    webhookDnsTimeoutMs: int(env, 'PAYRAIL_WEBHOOK_DNS_TIMEOUT_MS', 2000, 1),
    merchantCacheMs: int(env, 'PAYRAIL_MERCHANT_CACHE_MS', 1000),
    pgPreparedStatements: bool(env, 'PAYRAIL_PG_PREPARED_STATEMENTS', true),
    trustProxy: parseTrustProxy(env.PAYRAIL_TRUST_PROXY),
    adminFailuresPerAddress: int(env, 'PAYRAIL_ADMIN_FAILURES_PER_ADDRESS', 20, 1),
    publicUrl: env.PAYRAIL_PUBLIC_URL ? parsePublicUrl('PAYRAIL_PUBLIC_URL', env.PAYRAIL_PUBLIC_URL) : undefined,
    pspNotifySecret: pspSecret(env, 'PAYRAIL_PSP_NOTIFY_SECRET'),
    ...masterKeys(env, mode),
    connectors: loadConnectorSettings(env, mode),
  };
}
