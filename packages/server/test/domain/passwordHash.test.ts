import { describe, expect, it } from 'vitest';
import {
  DUMMY_PASSWORD_HASH,
  hashPassword,
  PASSWORD_COST,
  TEST_PASSWORD_COST,
  verifyPassword,
} from '../../src/domain/passwordHash.ts';

describe('operator password hashes', () => {
  it('hash at N = 2^15, r = 8, p = 1 unless a cost is given, and the dummy hash too', async () => {
    expect(PASSWORD_COST).toEqual({ N: 32768, r: 8, p: 1 });
    const hash = await hashPassword('correct horse battery');
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/);
    expect(DUMMY_PASSWORD_HASH).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(await verifyPassword('correct horse battery', hash)).toBe(true);
    expect(await verifyPassword('correct horse battery!', hash)).toBe(false);
  });

  it("the tests' cost is carried by its hash, which verifies like any other", async () => {
    expect(TEST_PASSWORD_COST.N).toBeLessThan(PASSWORD_COST.N);
    const hash = await hashPassword('correct horse battery', TEST_PASSWORD_COST);
    expect(hash).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(await verifyPassword('correct horse battery', hash)).toBe(true);
    expect(await verifyPassword('wrong horse battery', hash)).toBe(false);
  });
});
