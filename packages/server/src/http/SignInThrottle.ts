import { AdminError } from './AdminError.ts';
import type { CounterStore } from './CounterStore.ts';

const WINDOW_MS = 15 * 60 * 1000;

/**
 * Slows password and key guessing on the console's sign-in: after too many failures from one client address
 * (or for one account: half that), within 15 minutes, further attempts get 429 until the window passes. As with
 * the token throttle, an attempt counts as a failure before the check and is given back when it succeeds.
 */
export class SignInThrottle {
  constructor(
    private readonly counters: CounterStore,
    private readonly perAddress: number,
  ) {}

  async attempt<T>(account: string, address: string, verify: () => Promise<T | null>): Promise<T | null> {
    const keys = [`signin:ip:${address}`, `signin:acct:${account.toLowerCase().slice(0, 300)}`];
    const [byAddress = 0, byAccount = 0] = await Promise.all(keys.map((k) => this.counters.increment(k, WINDOW_MS)));
    const release = () => Promise.all(keys.map((k) => this.counters.decrement(k)));
    if (byAddress > this.perAddress || byAccount > Math.max(1, Math.floor(this.perAddress / 2))) {
      await release();
      throw new AdminError(429, 'too_many_attempts', 'Too many failed sign-ins; try again in 15 minutes');
    }
    let result: T | null;
    try {
      result = await verify();
    } catch (err) {
      await release();
      throw err;
    }
    if (result !== null) await release();
    return result;
  }
}
