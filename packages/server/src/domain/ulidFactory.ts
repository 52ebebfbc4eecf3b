import { randomFillSync } from 'node:crypto';
import { encodeTime, incrementBase32, ulid } from 'ulid';

const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let used = POOL_BYTES;

/**
 * A fraction in [0, 1) from one byte of a pooled CSPRNG buffer. ulid's own generator asks the system for one byte
 * per character (sixteen `getRandomValues` calls per identifier): under a drain that was several percent of the
 * server's CPU. A byte gives 256 equally likely fractions, and ulid takes ⌊x × 32⌋ of each, so every character stays
 * uniform over the 32 symbols.
 */
function pooledRandom(): number {
  if (used === POOL_BYTES) {
    randomFillSync(pool);
    used = 0;
  }
  return (pool[used++] as number) / 256;
}

/**
 * A ULID generator on the pooled randomness, strictly increasing within a millisecond, whose time part is always the
 * time it is given. ulid's monotonicFactory kept the latest time it had seen for any earlier time too, so after a
 * clock stepped back (or a test's clock set before another's, in one process) ids carried a time later than their
 * rows' created_at; lists turn created_at windows into id bounds (store/createdRangeWhere.ts, issue 35), which needs
 * the id's time to be the row's.
 */
export const ulidFactory = (): ((now: number) => string) => {
  let lastTime = -1;
  let lastRandom = '';
  return (seed: number) => {
    if (seed === lastTime) {
      lastRandom = incrementBase32(lastRandom);
      return encodeTime(seed, 10) + lastRandom;
    }
    const id = ulid(seed, pooledRandom);
    lastTime = seed;
    lastRandom = id.slice(10);
    return id;
  };
};
