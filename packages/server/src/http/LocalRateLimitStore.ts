import type { Clock } from '../clock.ts';

/** The callback shape of @fastify/rate-limit's stores. */
export type RateLimitResult = { current: number; ttl: number };
export type RateLimitCallback = (err: Error | null, result: RateLimitResult | null) => void;
export interface RateLimitStore {
  incr(key: string, cb: RateLimitCallback, timeWindow: number, max: number): void;
  child(routeOptions: Record<string, unknown>): RateLimitStore;
}

/** What the plugin passes a store's constructor (its options) and `child` (a route's). */
export interface RateLimitStoreParams {
  continueExceeding?: boolean;
  exponentialBackoff?: boolean;
  cache?: number;
}

interface Window {
  current: number;
  ttl: number;
  startedAt: number;
}

/** The plugin's default: the most keys one in-memory store keeps (the oldest goes first beyond it). */
const DEFAULT_CACHE = 5000;

/**
 * @fastify/rate-limit's in-process store (its LocalStore: the same counting, the same options) on the composition
 * root's clock rather than the system's, so that a test moves a window's end instead of waiting for it.
 */
export function localRateLimitStore(clock: Clock) {
  return class LocalRateLimitStore implements RateLimitStore {
    private readonly windows = new Map<string, Window>();
    private readonly continueExceeding: boolean;
    private readonly exponentialBackoff: boolean;
    private readonly cache: number;

    constructor(params: RateLimitStoreParams = {}) {
      this.continueExceeding = params.continueExceeding ?? false;
      this.exponentialBackoff = params.exponentialBackoff ?? false;
      this.cache = params.cache ?? DEFAULT_CACHE;
    }

    incr(key: string, cb: RateLimitCallback, timeWindow: number, max: number): void {
      const now = clock();
      let w = this.windows.get(key);
      if (!w) {
        w = { current: 1, ttl: timeWindow, startedAt: now };
      } else if (w.startedAt + timeWindow <= now) {
        // The window has ended: a new one starts with this request.
        w.current = 1;
        w.ttl = timeWindow;
        w.startedAt = now;
      } else {
        w.current += 1;
        if (this.continueExceeding && w.current > max) {
          w.ttl = timeWindow;
          w.startedAt = now;
        } else if (this.exponentialBackoff && w.current > max) {
          const ttl = timeWindow * 2 ** (w.current - max - 1);
          w.ttl = Number.isSafeInteger(ttl) ? ttl : Number.MAX_SAFE_INTEGER;
          w.startedAt = now;
        } else {
          w.ttl = timeWindow - (now - w.startedAt);
        }
      }
      // Re-inserted, so that the Map's order is the order of last use (the least recently used goes first).
      this.windows.delete(key);
      this.windows.set(key, w);
      if (this.windows.size > this.cache) {
        const oldest = this.windows.keys().next();
        if (!oldest.done) this.windows.delete(oldest.value);
      }
      cb(null, { current: w.current, ttl: w.ttl });
    }

    child(routeOptions: Record<string, unknown>): RateLimitStore {
      return new LocalRateLimitStore(routeOptions as RateLimitStoreParams);
    }
  };
}
