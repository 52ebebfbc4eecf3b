/** Timing helpers: abortable sleep, jittered exponential backoff, Retry-After, and a client-side request budget. */
import { systemNow } from './clock.ts';

export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal as AbortSignal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** "Full jitter": a random delay between 0 and min(max, base·2^retry), so that clients do not retry in step. */
export function backoffDelay(retry: number, baseMs: number, maxMs: number, random = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** retry);
  return Math.round(random() * ceiling);
}

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date; falls back on `RateLimit-Reset` (seconds). */
export function retryAfterMs(headers: Headers, now = systemNow()): number | undefined {
  const value = headers.get('retry-after') ?? headers.get('ratelimit-reset');
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.ceil(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * At most `perMinute` acquisitions in any sliding minute, shared by every caller of one client. Callers beyond
 * it wait their turn (first come, first served) instead of being refused by the server.
 */
export class RequestBudget {
  private readonly times: number[] = [];
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly perMinute: number,
    private readonly windowMs = 60_000,
    /** The client's clock (PayrailOptions.now). */
    private readonly now: () => number = systemNow,
  ) {}

  acquire(signal?: AbortSignal): Promise<void> {
    const turn = this.queue.then(() => this.take(signal));
    // The next caller waits for this one's turn, whether it succeeded or was aborted.
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private async take(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const now = this.now();
      while (this.times.length > 0 && (this.times[0] as number) <= now - this.windowMs) this.times.shift();
      if (this.times.length < this.perMinute) {
        this.times.push(now);
        return;
      }
      await sleep((this.times[0] as number) + this.windowMs - now, signal);
    }
  }

  /** The server said the budget is spent: do not ask again before `ms` from now. */
  pause(ms: number): void {
    const until = this.now() + ms - this.windowMs;
    this.times.length = 0;
    for (let i = 0; i < this.perMinute; i++) this.times.push(until);
  }
}
