import { describe, expect, it } from 'vitest';
import { counterName, FailureThrottle } from '../../src/services/FailureThrottle.ts';
import { MemoryCounterStore } from '../../src/store/CounterStore.ts';
import { fixedClock } from '../support/testClock.ts';

class Refused extends Error {
  constructor(readonly retryAfter: number) {
    super('refused');
  }
}

const limitsFor = (address: string, key: string) => [
  { counter: counterName('ip', address), max: 5 },
  { counter: counterName('key', key), max: 3 },
];

/**
 * The failure throttle's store stays bounded whatever a client sends (SECURITY.md, issue 10 finding 1): once an
 * address is over its limit, its attempts create no counter for the keys they name, and right attempts leave
 * nothing behind.
 */
describe('FailureThrottle', () => {
  it('an address over its limit creates no more key counters, however many keys it tries', async () => {
    const store = new MemoryCounterStore(fixedClock());
    const throttle = new FailureThrottle(store, 60_000, (s) => new Refused(s));
    let refused = 0;
    for (let i = 0; i < 1000; i++) {
      await throttle
        .attempt(limitsFor('203.0.113.9', `guess-${i}`), async () => null)
        .catch((err: unknown) => {
          expect(err).toBeInstanceOf(Refused);
          refused++;
        });
    }
    expect(refused).toBe(995);
    // The address and the five keys it was allowed to fail with: before the fix, one counter per request.
    expect(store.size).toBe(6);
  });

  it('a right attempt gives its counts back and leaves no counter', async () => {
    const store = new MemoryCounterStore(fixedClock());
    const throttle = new FailureThrottle(store, 60_000, (s) => new Refused(s));
    for (let i = 0; i < 100; i++) {
      await expect(throttle.attempt(limitsFor(`198.51.100.${i}`, `key-${i}`), async () => 'ok')).resolves.toBe('ok');
    }
    expect(store.size).toBe(0);
  });

  it('refuses with the window of the limit reached, and a key limit holds across addresses', async () => {
    const store = new MemoryCounterStore(fixedClock());
    const throttle = new FailureThrottle(store, 60_000, (s) => new Refused(s));
    for (let i = 0; i < 3; i++) await throttle.attempt(limitsFor(`192.0.2.${i}`, 'victim'), async () => null);
    const err = await throttle.attempt(limitsFor('192.0.2.99', 'victim'), async () => 'never').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Refused);
    expect((err as Refused).retryAfter).toBeGreaterThan(55);
    expect((err as Refused).retryAfter).toBeLessThanOrEqual(60);
  });
});
