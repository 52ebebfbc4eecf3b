import { describe, expect, it } from 'vitest';
import type { Merchant } from '../../src/domain/Merchant.ts';
import { MerchantCache } from '../../src/services/MerchantCache.ts';

const merchant = (id: string, credentialsVersion = 1) => ({ id, credentialsVersion }) as unknown as Merchant;

/** A clock the test moves, and a loader that counts reads and answers with the "row" it is given. */
function setup(ttlMs: number, maxEntries?: number) {
  let now = 1_000_000;
  const rows = new Map<string, Merchant>();
  let reads = 0;
  const cache = new MerchantCache({ ttlMs, maxEntries, clock: () => now });
  const load = async (id: string) => {
    reads += 1;
    return rows.get(id) ?? null;
  };
  return {
    cache,
    rows,
    get: (id: string) => cache.get(id, load),
    advance: (ms: number) => (now += ms),
    reads: () => reads,
  };
}

describe('MerchantCache', () => {
  it('answers from memory within the bound and reads the database again once it has passed', async () => {
    const s = setup(1000);
    s.rows.set('m1', merchant('m1', 1));
    expect((await s.get('m1'))?.credentialsVersion).toBe(1);
    s.rows.set('m1', merchant('m1', 2)); // rotated elsewhere
    s.advance(999);
    expect((await s.get('m1'))?.credentialsVersion).toBe(1);
    expect(s.reads()).toBe(1);
    s.advance(1);
    expect((await s.get('m1'))?.credentialsVersion).toBe(2);
    expect(s.reads()).toBe(2);
  });

  it('forget makes the next read go to the database at once, and a read begun before it is not kept', async () => {
    const s = setup(60_000);
    s.rows.set('m1', merchant('m1', 1));
    await s.get('m1');
    s.rows.set('m1', merchant('m1', 2));
    s.cache.forget('m1');
    expect((await s.get('m1'))?.credentialsVersion).toBe(2);

    // A read in flight when the merchant changes here may carry the old row: it answers its caller but is not kept.
    let release: (m: Merchant) => void = () => undefined;
    const slow = s.cache.get('m2', () => new Promise<Merchant>((resolve) => (release = resolve)));
    s.cache.forget('m2');
    release(merchant('m2', 1));
    await slow;
    s.rows.set('m2', merchant('m2', 5));
    expect((await s.get('m2'))?.credentialsVersion).toBe(5);
  });

  it('concurrent requests of one merchant share one read', async () => {
    const s = setup(1000);
    s.rows.set('m1', merchant('m1'));
    await Promise.all(Array.from({ length: 20 }, () => s.get('m1')));
    expect(s.reads()).toBe(1);
  });

  it('keeps at most maxEntries merchants, dropping the oldest', async () => {
    const s = setup(60_000, 3);
    for (const id of ['a', 'b', 'c', 'd']) {
      s.rows.set(id, merchant(id));
      await s.get(id);
    }
    expect(s.cache.size).toBe(3);
    await s.get('a');
    expect(s.reads()).toBe(5);
  });

  it('with a bound of 0 reads the database every time', async () => {
    const s = setup(0);
    s.rows.set('m1', merchant('m1'));
    await s.get('m1');
    await s.get('m1');
    expect(s.reads()).toBe(2);
  });
});
