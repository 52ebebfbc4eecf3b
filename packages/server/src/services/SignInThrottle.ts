import type { CounterStore } from '../store/CounterStore.ts';
import { counterName, FailureThrottle, type Refuse } from './FailureThrottle.ts';

const WINDOW_MS = 15 * 60 * 1000;

/**
 * Slows password and key guessing on the console's sign-in: after too many failures from one client address
 * (or for one account: half that), within 15 minutes, further attempts are refused (`refuse`: HTTP 429) until the window passes. Same
 * counting as the token and admin throttles (FailureThrottle): counted before the check, given back on success,
 * counters named by a hash of what they count.
 */
export class SignInThrottle {
  private readonly throttle: FailureThrottle;

  constructor(
    counters: CounterStore,
    private readonly perAddress: number,
    refuse: Refuse,
  ) {
    this.throttle = new FailureThrottle(counters, WINDOW_MS, refuse);
  }

  /**
   * `account` is the identity as the lookup uses it (domain/signInIdentity): counted exactly as given, so that the
   * account's limit and the account found are one and the same whatever spelling was sent.
   */
  attempt<T>(account: string, address: string, verify: () => Promise<T | null>): Promise<T | null> {
    return this.throttle.attempt(
      [
        { counter: counterName('signin:ip', address), max: this.perAddress },
        {
          counter: counterName('signin:acct', account),
          max: Math.max(1, Math.floor(this.perAddress / 2)),
        },
      ],
      verify,
    );
  }
}
