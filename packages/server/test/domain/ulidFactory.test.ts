import { decodeTime, isValid } from 'ulid';
import { describe, expect, it } from 'vitest';
import { ulidFactory } from '../../src/domain/ulidFactory.ts';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

describe('ulidFactory (pooled randomness)', () => {
  it('makes valid, strictly increasing ULIDs carrying the given time', () => {
    const ulid = ulidFactory();
    const ids = Array.from({ length: 5000 }, (_, i) => ulid(1_700_000_000_000 + Math.floor(i / 100)));
    for (const id of ids) expect(isValid(id)).toBe(true);
    for (let i = 1; i < ids.length; i++) expect((ids[i] as string) > (ids[i - 1] as string)).toBe(true);
    expect(decodeTime(ids[4999] as string)).toBe(1_700_000_000_049);
  });

  it('gives an earlier time its own time, not the latest one seen (ids bound created_at windows)', () => {
    const ulid = ulidFactory();
    const later = ulid(1_700_000_100_000);
    const earlier = ulid(1_700_000_000_000);
    expect(decodeTime(earlier)).toBe(1_700_000_000_000);
    expect(earlier < later).toBe(true);
    const same = ulid(1_700_000_000_000);
    expect(same > earlier && decodeTime(same) === 1_700_000_000_000).toBe(true);
  });

  it('spreads the random part evenly over all 32 symbols (the pool is refilled, never reused)', () => {
    const ulid = ulidFactory();
    const counts = new Map<string, number>();
    // A new millisecond each time, so every identifier draws 16 fresh characters (about 40 refills of the pool).
    for (let i = 0; i < 10_000; i++) {
      for (const c of ulid(1_700_000_000_000 + i).slice(10)) counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    expect([...counts.keys()].sort().join('')).toBe(CROCKFORD);
    const expected = 160_000 / 32;
    // χ² with 31 degrees of freedom: 61.1 is its 0.1 % tail, so an honest generator fails about once in a thousand.
    const chi2 = [...counts.values()].reduce((s, n) => s + (n - expected) ** 2 / expected, 0);
    expect(chi2).toBeLessThan(61.1);
  });
});
