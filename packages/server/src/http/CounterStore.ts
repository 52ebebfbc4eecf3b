import type { Redis } from 'ioredis';

/** Windowed counters: in process memory for one instance, in Redis when several instances share limits. */
export interface CounterStore {
  get(key: string): Promise<number>;
  /** Adds one and returns the new count; the count expires `windowMs` after its first increment. */
  increment(key: string, windowMs: number): Promise<number>;
  /** Takes one back (never below zero, never creating a count); returns the new count. */
  decrement(key: string): Promise<number>;
}

export class MemoryCounterStore implements CounterStore {
  private readonly counts = new Map<string, { count: number; expiresAt: number }>();

  async get(key: string): Promise<number> {
    const entry = this.counts.get(key);
    if (!entry || entry.expiresAt <= Date.now()) return 0;
    return entry.count;
  }

  async increment(key: string, windowMs: number): Promise<number> {
    const now = Date.now();
    let entry = this.counts.get(key);
    if (!entry || entry.expiresAt <= now) {
      entry = { count: 0, expiresAt: now + windowMs };
      this.counts.set(key, entry);
      if (this.counts.size > 100_000) this.sweep(now);
    }
    entry.count += 1;
    return entry.count;
  }

  async decrement(key: string): Promise<number> {
    const entry = this.counts.get(key);
    if (!entry || entry.expiresAt <= Date.now()) return 0;
    entry.count = Math.max(0, entry.count - 1);
    return entry.count;
  }

  private sweep(now: number) {
    for (const [key, entry] of this.counts) if (entry.expiresAt <= now) this.counts.delete(key);
  }
}

export class RedisCounterStore implements CounterStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'payrail:',
  ) {}

  async get(key: string): Promise<number> {
    return Number((await this.redis.get(this.prefix + key)) ?? 0);
  }

  async increment(key: string, windowMs: number): Promise<number> {
    const results = await this.redis
      .multi()
      .incr(this.prefix + key)
      .pexpire(this.prefix + key, windowMs, 'NX')
      .exec();
    return Number(results?.[0]?.[1] ?? 0);
  }

  async decrement(key: string): Promise<number> {
    // Only an existing, positive count goes down, so that no key is left without its expiry.
    const result = await this.redis.eval(
      "local n = tonumber(redis.call('GET', KEYS[1]) or '0') if n > 0 then return redis.call('DECR', KEYS[1]) end return 0",
      1,
      this.prefix + key,
    );
    return Number(result);
  }
}
