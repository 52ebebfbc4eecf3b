import { Redis, type RedisOptions } from 'ioredis';
import type { Config } from '../config.ts';

/**
 * A command fails fast while Redis is unreachable (two retries), so that counters fall back to process memory
 * instead of requests waiting on Redis.
 */
const COMMON: RedisOptions = { maxRetriesPerRequest: 2, lazyConnect: false };

/**
 * After a failover the old master may still take connections as a replica: writes there fail with READONLY.
 * Reconnecting (2: and sending the command again) asks the sentinels for the new master.
 */
const reconnectOnReadOnly = (err: Error) => (err.message.startsWith('READONLY') ? 2 : false);

/** The server's Redis client: through Sentinel when configured, else REDIS_URL's node; null without Redis. */
export function createRedis(config: Pick<Config, 'redisUrl' | 'redisSentinel'>): Redis | null {
  const sentinel = config.redisSentinel;
  if (sentinel) {
    return new Redis({
      ...COMMON,
      sentinels: sentinel.sentinels,
      name: sentinel.name,
      password: sentinel.password,
      sentinelPassword: sentinel.sentinelPassword,
      // Subscribes to the sentinels' +switch-master, so that a failover moves the client at once rather than when
      // its connection to the old master happens to drop.
      failoverDetector: true,
      reconnectOnError: reconnectOnReadOnly,
    });
  }
  return config.redisUrl ? new Redis(config.redisUrl, { ...COMMON, reconnectOnError: reconnectOnReadOnly }) : null;
}
