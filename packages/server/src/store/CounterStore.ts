import type { Redis } from 'ioredis';
import type { Clock } from '../clock.ts';

/** A count and how long until its window ends. */
export interface Count {
  count: number;
  /** Milliseconds until the count expires (0 when there is none). */
  resetMs: number;
}

/**
 * Windowed counters: in process memory for one instance, in Redis when several instances share limits.
 * Callers name counters by a hash of what they count (never a raw credential), so names have a fixed length.
 */
export interface CounterStore {
  get(key: string): Promise<Count>;
  /** Adds one and returns the new count; the count expires `windowMs` after its first increment. */
  increment(key: string, windowMs: number): Promise<Count>;
  /**
   * Takes one back (never below zero, never creating a count); returns the new count. A count back at zero is
   * removed: attempts that turned out right (or were refused) leave nothing behind.
   */
  decrement(key: string): Promise<number>;
}

/** Default cap of the in-memory store: about 150 bytes an entry, so some 15 MB at most. */
export const MEMORY_COUNTER_CAP = 100_000;

export class MemoryCounterStore implements CounterStore {
  private readonly counts = new Map<string, { count: number; expiresAt: number }>();

  /**
   * `clock`: the composition root's. `cap` bounds the number of counters; past it the oldest is dropped (a Map
   * iterates in insertion order).
   */
  constructor(
    private readonly clock: Clock,
    private readonly cap = MEMORY_COUNTER_CAP,
  ) {}

  get size(): number {
    return this.counts.size;
  }

  async get(key: string): Promise<Count> {
    const entry = this.counts.get(key);
    const now = this.clock();
    if (!entry || entry.expiresAt <= now) return { count: 0, resetMs: 0 };
    return { count: entry.count, resetMs: entry.expiresAt - now };
  }

  async increment(key: string, windowMs: number): Promise<Count> {
    const now = this.clock();
    let entry = this.counts.get(key);
    if (!entry || entry.expiresAt <= now) {
      // Re-inserted, not updated in place, so that insertion order stays the order of expiry.
      this.counts.delete(key);
      entry = { count: 0, expiresAt: now + windowMs };
      this.counts.set(key, entry);
      if (this.counts.size > this.cap) this.evict(now);
    }
    entry.count += 1;
    return { count: entry.count, resetMs: entry.expiresAt - now };
  }

  async decrement(key: string): Promise<number> {
    const entry = this.counts.get(key);
    if (!entry || entry.expiresAt <= this.clock()) return 0;
    entry.count = Math.max(0, entry.count - 1);
    if (entry.count === 0) this.counts.delete(key);
    return entry.count;
  }

  /** Drops expired counters from the front, then the oldest ones until the store is under its cap. */
  private evict(now: number) {
    for (const [key, entry] of this.counts) {
      if (this.counts.size <= this.cap && entry.expiresAt > now) break;
      this.counts.delete(key);
    }
  }
}

export class RedisCounterStore implements CounterStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'payrail:',
  ) {}

  async get(key: string): Promise<Count> {
    const results = await this.redis
      .multi()
      .get(this.prefix + key)
      .pttl(this.prefix + key)
      .exec();
    return { count: Number(results?.[0]?.[1] ?? 0), resetMs: Math.max(0, Number(results?.[1]?.[1] ?? 0)) };
  }

  async increment(key: string, windowMs: number): Promise<Count> {
    const results = await this.redis
      .multi()
      .incr(this.prefix + key)
      .pexpire(this.prefix + key, windowMs, 'NX')
      .pttl(this.prefix + key)
      .exec();
    for (const [err] of results ?? []) if (err) throw err;
    return { count: Number(results?.[0]?.[1] ?? 0), resetMs: Math.max(0, Number(results?.[2]?.[1] ?? 0)) };
  }

  async decrement(key: string): Promise<number> {
    // Only an existing, positive count goes down, so that no key is left without its expiry.
    const result = await this.redis.eval(
      "local n = tonumber(redis.call('GET', KEYS[1]) or '0') " +
        "if n > 1 then return redis.call('DECR', KEYS[1]) end if n == 1 then redis.call('DEL', KEYS[1]) end return 0",
      1,
      this.prefix + key,
    );
    return Number(result);
  }
}

/**
 * Redis while it answers, in-process counters while it does not (SECURITY.md: a Redis outage never produces
 * 5000). A command waits at most `timeoutMs`; while the client is not connected Redis is not asked at all, so an
 * outage costs no time per request. Counts made during an outage are this instance's alone.
 */
export class FallbackCounterStore implements CounterStore {
  constructor(
    private readonly redis: Redis,
    private readonly primary: CounterStore,
    private readonly fallback: CounterStore,
    private readonly timeoutMs = 500,
  ) {}

  get(key: string): Promise<Count> {
    return this.run((store) => store.get(key));
  }

  increment(key: string, windowMs: number): Promise<Count> {
    return this.run((store) => store.increment(key, windowMs));
  }

  decrement(key: string): Promise<number> {
    return this.run((store) => store.decrement(key));
  }

  private async run<T>(op: (store: CounterStore) => Promise<T>): Promise<T> {
    if (this.redis.status !== 'ready') return op(this.fallback);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('redis timeout')), this.timeoutMs);
    });
    try {
      return await Promise.race([op(this.primary), timeout]);
    } catch {
      return op(this.fallback);
    } finally {
      clearTimeout(timer);
    }
  }
}
