import { ConfigError } from './configError.ts';

/** A Sentinel's address. */
export interface SentinelAddress {
  host: string;
  port: number;
}

/**
 * Redis behind Sentinel: the client asks the sentinels which node is the master of `name`, and asks again when the
 * connection drops or the sentinels announce a failover, so that a Redis failover needs no Payrail restart.
 */
export interface RedisSentinelSettings {
  sentinels: SentinelAddress[];
  /** The master group name the sentinels monitor (`sentinel monitor <name> …`). */
  name: string;
  /** AUTH password of the Redis master and replicas (their `requirepass`), if any. */
  password?: string;
  /** AUTH password of the sentinels themselves (their own `requirepass`), if any. */
  sentinelPassword?: string;
}

/** Sentinel's own default port, for an address given without one. */
export const SENTINEL_DEFAULT_PORT = 26379;
export const SENTINEL_DEFAULT_NAME = 'mymaster';

/** `host:port,host:port` (a bracketed IPv6 address, `[::1]:26379`; the port may be left out) as addresses. */
export function parseSentinels(variable: string, text: string): SentinelAddress[] {
  const entries = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new ConfigError(variable, 'expected host:port[,host:port…]');
  return entries.map((entry) => {
    const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9._-]+))(?::(\d{1,5}))?$/.exec(entry);
    const port = m?.[3] === undefined ? SENTINEL_DEFAULT_PORT : Number(m[3]);
    if (!m || port < 1 || port > 65_535) {
      throw new ConfigError(variable, `"${entry}" is not host:port (an IPv6 address in brackets: [::1]:26379)`);
    }
    return { host: (m[1] ?? m[2]) as string, port };
  });
}

const nonEmpty = (value: string | undefined) => (value === undefined || value === '' ? undefined : value);

/**
 * PAYRAIL_REDIS_SENTINELS (and PAYRAIL_REDIS_SENTINEL_NAME, PAYRAIL_REDIS_PASSWORD, PAYRAIL_REDIS_SENTINEL_PASSWORD);
 * undefined when unset. It replaces REDIS_URL, which names a single node: setting both is refused rather than one
 * silently ignored.
 */
export function loadRedisSentinel(env: NodeJS.ProcessEnv): RedisSentinelSettings | undefined {
  const raw = nonEmpty(env.PAYRAIL_REDIS_SENTINELS?.trim());
  const name = nonEmpty(env.PAYRAIL_REDIS_SENTINEL_NAME?.trim());
  const password = nonEmpty(env.PAYRAIL_REDIS_PASSWORD);
  const sentinelPassword = nonEmpty(env.PAYRAIL_REDIS_SENTINEL_PASSWORD);
  if (raw === undefined) {
    const orphan = [
      name && 'PAYRAIL_REDIS_SENTINEL_NAME',
      password && 'PAYRAIL_REDIS_PASSWORD',
      sentinelPassword && 'PAYRAIL_REDIS_SENTINEL_PASSWORD',
    ].find(Boolean);
    if (orphan)
      throw new ConfigError(orphan, 'set without PAYRAIL_REDIS_SENTINELS (with REDIS_URL, put it in the URL)');
    return undefined;
  }
  if (nonEmpty(env.REDIS_URL)) {
    throw new ConfigError('PAYRAIL_REDIS_SENTINELS', 'set together with REDIS_URL; use one or the other');
  }
  if (name !== undefined && !/^[A-Za-z0-9._-]+$/.test(name)) {
    throw new ConfigError('PAYRAIL_REDIS_SENTINEL_NAME', 'expected a master group name like mymaster');
  }
  return {
    sentinels: parseSentinels('PAYRAIL_REDIS_SENTINELS', raw),
    name: name ?? SENTINEL_DEFAULT_NAME,
    ...(password === undefined ? {} : { password }),
    ...(sentinelPassword === undefined ? {} : { sentinelPassword }),
  };
}
