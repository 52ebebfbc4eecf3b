import { createHash } from 'node:crypto';
import type { CounterStore } from '../store/CounterStore.ts';

/** One counter of failures and how many it allows within the window. */
export interface FailureLimit {
  counter: string;
  max: number;
}

/** Refuses an attempt because a limit is reached; `retryAfterSeconds` is when the fullest window frees. */
export type Refuse = (retryAfterSeconds: number) => Error;

/**
 * A counter name for `value` under `kind`: a hash, never the value itself, so that a raw API key (the V1 AES key)
 * or a client-chosen string never becomes a Redis key name, and every name has the same short length.
 */
export function counterName(kind: string, value: string): string {
  return `${kind}:${createHash('sha256').update(value, 'utf8').digest('base64url').slice(0, 22)}`;
}

const retryAfter = (resetMs: number) => Math.max(1, Math.ceil(resetMs / 1000));

/**
 * Slows guessing: after `max` failures on any of an attempt's counters within the window, further attempts are
 * refused until the window passes.
 *
 * An attempt is counted as a failure before the credentials are checked and given back when they turn out
 * right (or when it is refused), so that a burst of simultaneous guesses cannot all pass the check before
 * any of them is recorded: at most the limit of wrong guesses is ever checked, on any number of instances.
 */
export class FailureThrottle {
  constructor(
    private readonly counters: CounterStore,
    private readonly windowMs: number,
    private readonly refuse: Refuse,
  ) {}

  /**
   * Runs `verify` (which answers null for a failure) unless a limit is reached. `limits` are checked in order,
   * broadest first. `verify` may name a further limit once it knows it (`guard`: e.g. the merchant a V1 payload
   * turned out to be for); a guarded limit that is reached refuses the attempt, but is not itself counted.
   */
  async attempt<T>(
    limits: FailureLimit[],
    verify: (guard: (limit: FailureLimit) => Promise<void>) => Promise<T | null>,
  ): Promise<T | null> {
    // One limit after the other, broadest first (the client's address): an attempt refused by the address limit
    // never creates the counter of the key it names, so a client over its limit cannot grow the store with new
    // keys, and the number of key counters stays bounded by the address limits (SECURITY.md).
    const counted: FailureLimit[] = [];
    const release = () => Promise.all(counted.map((l) => this.counters.decrement(l.counter)));
    for (const limit of limits) {
      const count = await this.counters.increment(limit.counter, this.windowMs);
      counted.push(limit);
      if (count.count > limit.max) {
        // A refused attempt is not a failure: it must not push the address limit on behalf of one key.
        await release();
        throw this.refuse(retryAfter(count.resetMs));
      }
    }
    const guard = async (limit: FailureLimit) => {
      const current = await this.counters.get(limit.counter);
      if (current.count >= limit.max) throw this.refuse(retryAfter(current.resetMs));
    };
    let result: T | null;
    try {
      result = await verify(guard);
    } catch (err) {
      await release();
      throw err;
    }
    if (result !== null) await release();
    return result;
  }
}
