/** What the probe needs of an ioredis client (structural, so that tests can hand it a stand-in). */
export interface RedisLike {
  readonly status: string;
  ping(): Promise<string>;
}

/** A ping that has not answered in this long counts as unreachable: /readyz and /metrics must not wait on Redis. */
const PING_TIMEOUT_MS = 1000;

/**
 * Whether the configured Redis answers, for `/readyz` (degraded, still 200) and `payrail_redis_up`. Without Redis
 * the instance counts alone by design, so the answer is null: nothing to report.
 */
export class RedisProbe {
  constructor(private readonly redis: RedisLike | null) {}

  async reachable(): Promise<boolean | null> {
    if (!this.redis) return null;
    // Not connected: ioredis would queue the ping until it reconnects, so the status is the answer.
    if (this.redis.status !== 'ready') return false;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), PING_TIMEOUT_MS);
      timer.unref?.();
    });
    try {
      return await Promise.race([
        this.redis.ping().then(
          () => true,
          () => false,
        ),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}
