import type { Clock } from '../../src/clock.ts';

/** A clock a test moves forward instead of sleeping (createServer's `clock` option, or a service's). */
export interface TestClock extends Clock {
  /** Moves the time forward by `ms`, at once. */
  advance(ms: number): void;
}

/**
 * The system's time plus whatever the test has advanced: time still passes as usual (timers, leases, the database
 * clock go on), and `advance` jumps ahead, as if the test had slept that long.
 */
export function movableClock(): TestClock {
  let offset = 0;
  return Object.assign(() => Date.now() + offset, {
    advance(ms: number) {
      offset += ms;
    },
  });
}

/** A clock that stands still at `start` until the test advances it. */
export function fixedClock(start = Date.UTC(2025, 0, 1)): TestClock {
  let now = start;
  return Object.assign(() => now, {
    advance(ms: number) {
      now += ms;
    },
  });
}
