import { RequestRejected } from '../domain/RequestRejected.ts';
import { TokenCodes } from '@payrail/protocol';
import type { CounterStore } from './CounterStore.ts';

const WINDOW_MS = 15 * 60 * 1000;

/**
 * Slows credential guessing on the token endpoints: after too many failures for one API key, or from one
 * client address, within 15 minutes, further attempts are refused with 4290 until the window passes.
 */
export class TokenThrottle {
  constructor(
    private readonly counters: CounterStore,
    private readonly perKey: number,
    private readonly perAddress: number,
  ) {}

  async check(apiKey: string, address: string): Promise<void> {
    const [byKey, byAddress] = await Promise.all([
      apiKey ? this.counters.get(`tokfail:key:${apiKey}`) : Promise.resolve(0),
      this.counters.get(`tokfail:ip:${address}`),
    ]);
    if (byKey >= this.perKey || byAddress >= this.perAddress) throw new RequestRejected(TokenCodes.tooManyFailures);
  }

  async recordFailure(apiKey: string, address: string): Promise<void> {
    await Promise.all([
      apiKey ? this.counters.increment(`tokfail:key:${apiKey}`, WINDOW_MS) : Promise.resolve(0),
      this.counters.increment(`tokfail:ip:${address}`, WINDOW_MS),
    ]);
  }
}
