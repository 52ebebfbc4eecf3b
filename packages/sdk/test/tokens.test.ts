import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationError, type Scheme } from '../src/index.ts';
import { admin, clientFor, createMerchant, startTestServer, type TestMerchant, type TestServer } from './support.ts';

/** Counts what the SDK sends through a real fetch, and can spoil chosen bearer tokens on the way. */
function countingFetch(spoil: (token: string) => boolean = () => false) {
  const seen = { tokenRequests: 0, apiRequests: 0, refused: 0 };
  const wrapped: typeof fetch = async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    const headers = new Headers(init?.headers);
    if (url.includes('/v1/auth/')) seen.tokenRequests++;
    else seen.apiRequests++;
    const auth = headers.get('authorization');
    if (auth && spoil(auth.slice('Bearer '.length))) headers.set('authorization', `${auth}x`);
    const res = await fetch(input, { ...init, headers });
    if (res.status === 401) seen.refused++;
    return res;
  };
  return { seen, fetch: wrapped };
}

let t: TestServer;
beforeAll(async () => {
  // Short tokens, so that renewal can be seen; long enough that a loaded machine does not see them expire early.
  t = await startTestServer('pglite', { env: { PAYRAIL_TOKEN_TTL_SECONDS: '6' } });
});
afterAll(() => t?.close());

describe.each<Scheme>(['v2', 'v1'])('tokens with scheme %s', (scheme) => {
  let m: TestMerchant;
  beforeAll(async () => {
    m = await createMerchant(t.url, `Tokens ${scheme}`, '100.00');
  });

  it('fetches one token on first use, shared by concurrent calls', async () => {
    const { seen, fetch } = countingFetch();
    const payrail = clientFor(t.url, m, { scheme, fetch });
    const balances = await Promise.all(Array.from({ length: 20 }, () => payrail.wallets.balance(m.wallet_id)));
    expect(balances.every((b) => b.balance === '100.00')).toBe(true);
    expect(seen).toEqual({ tokenRequests: 1, apiRequests: 20, refused: 0 });
    const info = await payrail.token();
    expect(info.scheme).toBe(scheme);
    expect(info.expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(6_000);
    expect(seen.tokenRequests).toBe(1);
  });

  it('renews once when the server refuses a token (4001), and concurrent calls share the renewal', async () => {
    let spoiled: string | undefined;
    const { seen, fetch } = countingFetch((token) => {
      spoiled ??= token;
      return token === spoiled;
    });
    const payrail = clientFor(t.url, m, { scheme, fetch });
    const balances = await Promise.all(Array.from({ length: 8 }, () => payrail.wallets.balance(m.wallet_id)));
    expect(balances).toHaveLength(8);
    expect(seen.tokenRequests).toBe(2);
    expect(seen.refused).toBe(8);
    expect(seen.apiRequests).toBe(16);
  });
});

it('renews the token before it expires, once for concurrent calls (V2 and V1)', async () => {
  const [v2, v1] = await Promise.all([
    createMerchant(t.url, 'Renewal v2', '100.00'),
    createMerchant(t.url, 'Renewal v1', '100.00'),
  ]);
  await Promise.all(
    (
      [
        [v2, 'v2'],
        [v1, 'v1'],
      ] as const
    ).map(async ([m, scheme]) => {
      const { seen, fetch } = countingFetch();
      // The client's clock, moved instead of waiting (the server's stays real: the old token is still good there).
      let offset = 0;
      const payrail = clientFor(t.url, m, { scheme, fetch, now: () => Date.now() + offset });
      const first = await payrail.token();
      // Not yet in its last fifth: the cached token is used.
      offset = 2_000;
      await payrail.wallets.balance(m.wallet_id);
      expect(seen.tokenRequests).toBe(1);
      // A 6 s token is renewed in its last fifth (1.2 s): 4.9 s later the next calls renew it, once.
      offset = 4_900;
      await Promise.all(Array.from({ length: 10 }, () => payrail.wallets.balance(m.wallet_id)));
      const second = await payrail.token();
      expect(second.token).not.toBe(first.token);
      expect(second.expiresAt.getTime()).toBeGreaterThan(first.expiresAt.getTime());
      expect(seen).toMatchObject({ tokenRequests: 2, refused: 0 });
    }),
  );
});

it('gives up with AuthenticationError when the renewed token is refused too (credentials rotated)', async () => {
  const m = await createMerchant(t.url, 'Rotated', '100.00');
  const { seen, fetch } = countingFetch();
  const payrail = clientFor(t.url, m, { fetch });
  await payrail.wallets.balance(m.wallet_id);
  const rotated = await admin(t.url, 'POST', `/admin/v1/merchants/${m.merchant_id}/credentials/rotate`);
  expect(rotated.status).toBe(200);
  const err = await payrail.wallets.balance(m.wallet_id).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(AuthenticationError);
  expect(err).toMatchObject({ code: 4001, httpStatus: 401, operation: 'token' });
  // First token, then exactly one renewal attempt; no loop.
  expect(seen.tokenRequests).toBe(2);
  const renewed = clientFor(t.url, {
    ...m,
    api_key: rotated.body.api_key as string,
    secret_key: rotated.body.secret_key as string,
  });
  expect((await renewed.wallets.balance(m.wallet_id)).balance).toBe('100.00');
});
