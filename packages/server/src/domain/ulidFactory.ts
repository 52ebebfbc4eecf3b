import { randomFillSync } from 'node:crypto';
import { monotonicFactory, type ULIDFactory } from 'ulid';

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

/** A monotonic ULID generator (time-ordered, strictly increasing within a millisecond) on the pooled randomness. */
export const ulidFactory = (): ULIDFactory => monotonicFactory(pooledRandom);
