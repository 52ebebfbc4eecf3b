import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { Clock } from '../clock.ts';
import {
  localRateLimitStore,
  type RateLimitCallback as Callback,
  type RateLimitStore,
  type RateLimitStoreParams,
} from './LocalRateLimitStore.ts';

type StoreClass = new (...args: unknown[]) => RateLimitStore;

// The plugin's own Redis store (CommonJS, no `exports` map); in memory, the same counting on the server's clock.
const require = createRequire(import.meta.url);
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as StoreClass;

/** Longer than this, a Redis answer is not waited for: the request is counted in memory instead. */
const REDIS_WAIT_MS = 500;

/**
 * A @fastify/rate-limit store that counts in Redis (shared by every instance) while Redis answers, and in process
 * memory while it does not (SECURITY.md: a Redis outage never breaks the limit, nor a request). During an
 * outage each instance enforces the limit alone. `clock`: the composition root's (the in-memory counts).
 */
export function fallbackRateLimitStore(redis: Redis, nameSpace: string, clock: Clock) {
  const LocalStore = localRateLimitStore(clock);
  return class FallbackRateLimitStore implements RateLimitStore {
    private readonly remote: RateLimitStore;
    private readonly local: RateLimitStore;

    constructor(params: RateLimitStoreParams, parts?: [RateLimitStore, RateLimitStore]) {
      this.remote = parts?.[0] ?? new RedisStore(params.continueExceeding, params.exponentialBackoff, redis, nameSpace);
      this.local = parts?.[1] ?? new LocalStore(params);
    }

    incr(key: string, cb: Callback, timeWindow: number, max: number): void {
      if (redis.status !== 'ready') return this.local.incr(key, cb, timeWindow, max);
      let settled = false;
      const inMemory = () => {
        if (settled) return;
        settled = true;
        this.local.incr(key, cb, timeWindow, max);
      };
      const timer = setTimeout(inMemory, REDIS_WAIT_MS);
      this.remote.incr(
        key,
        (err, result) => {
          clearTimeout(timer);
          if (err || !result) return inMemory();
          if (settled) return;
          settled = true;
          cb(null, result);
        },
        timeWindow,
        max,
      );
    }

    child(routeOptions: Record<string, unknown>): RateLimitStore {
      return new FallbackRateLimitStore(routeOptions, [
        this.remote.child(routeOptions),
        this.local.child(routeOptions),
      ]);
    }
  };
}
