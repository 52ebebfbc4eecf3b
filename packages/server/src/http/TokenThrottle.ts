import { RequestRejected } from '../domain/RequestRejected.ts';
import { TokenCodes } from '@payrail/protocol';
import type { CounterStore } from './CounterStore.ts';

const WINDOW_MS = 15 * 60 * 1000;

/**
 * Slows credential guessing on the token endpoints: after too many failures for one API key, or from one
 * client address, within 15 minutes, further attempts are refused with 4290 until the window passes.
 *
 * An attempt is counted as a failure before the credentials are checked and given back when they turn out
 * right (or when it is refused), so that a burst of simultaneous guesses cannot all pass the check before
 * any of them is recorded: at most the limit of wrong guesses is ever checked, on any number of instances.
 */
export class TokenThrottle {
  constructor(
    private readonly counters: CounterStore,
    private readonly perKey: number,
    private readonly perAddress: number,
  ) {}

  /**
   * Runs `verify` (which answers null for wrong credentials) unless the key or the address is over its limit.
   * `apiKey` is the key the request claims, even when it names no merchant ("" when there is none).
   */
  async attempt<T>(apiKey: string, address: string, verify: () => Promise<T | null>): Promise<T | null> {
    const keyCounter = apiKey ? `tokfail:key:${apiKey}` : null;
    const addressCounter = `tokfail:ip:${address}`;
    const [byKey, byAddress] = await Promise.all([
      keyCounter ? this.counters.increment(keyCounter, WINDOW_MS) : Promise.resolve(0),
      this.counters.increment(addressCounter, WINDOW_MS),
    ]);
    const release = () =>
      Promise.all([
        keyCounter ? this.counters.decrement(keyCounter) : Promise.resolve(0),
        this.counters.decrement(addressCounter),
      ]);
    if (byKey > this.perKey || byAddress > this.perAddress) {
      // A refused attempt is not a failure: it must not push the address limit on behalf of one key.
      await release();
      throw new RequestRejected(TokenCodes.tooManyFailures);
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
