import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  ConflictError,
  NotFoundError,
  PayrailError,
  RateLimitError,
  ValidationError,
  type Collection,
  type Scheme,
} from '../src/index.ts';
import { clientFor, createMerchant, senderId, startTestServer, type TestMerchant, type TestServer } from './support.ts';

let t: TestServer;
beforeAll(async () => {
  // A low status limit, so that the rate-limit family can be seen on a real server (per merchant, per endpoint).
  t = await startTestServer('pglite', { env: { PAYRAIL_RATE_LIMIT_PER_MINUTE: '12' } });
});
afterAll(() => t?.close());

async function caught(promise: Promise<unknown>): Promise<PayrailError> {
  const err = await promise.then(
    () => new Error('expected a rejection'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PayrailError);
  return err as PayrailError;
}

describe.each<Scheme>(['v2', 'v1'])('collections with scheme %s', (scheme) => {
  let m: TestMerchant;
  beforeAll(async () => {
    m = await createMerchant(t.url, `Collections ${scheme}`, '10.00');
  });
  const client = () => clientFor(t.url, m, { scheme });

  it('creates an intent collection and reads it by txnId and senderId', async () => {
    const payrail = client();
    const id = senderId('C');
    const c = await payrail.collections.initiate({ senderId: id, amount: '250', remarks: 'order 42' });
    expect(c).toMatchObject({
      senderId: id,
      amount: '250.00',
      status: 'INITIATED',
      paymentMode: 'Intent',
      remarks: 'order 42',
      walletId: m.wallet_id,
      utr: null,
      payerVpa: null,
    });
    expect(c.txnId).toMatch(/^CT[0-9A-Z]{26}$/);
    expect(c.intentUrl).toMatch(/^upi:\/\/pay\?/);
    expect(c.intentUrl).toContain(`tr=${c.txnId}`);
    expect(c.expiresAt).toBeInstanceOf(Date);
    expect(c).toMatchObject({ requestAmount: '250.00', txnType: 'INTENT', channel: '' });
    expect(c.paymentUrl).toMatch(new RegExp(`^${t.url}/pay/[A-Za-z0-9_-]{32}$`));
    expect(c.vpa).toMatch(/@payrail$/);
    const read = await payrail.collections.get({ txnId: c.txnId });
    expect(read.paymentUrl).toBe(c.paymentUrl);
    expect((await payrail.collections.get({ txnId: c.txnId })).senderId).toBe(id);
    expect((await payrail.collections.get({ senderId: id })).txnId).toBe(c.txnId);
  });

  it('creates a collect request when payerVpa is given', async () => {
    const c = await client().collections.initiate({ senderId: senderId('C'), amount: '5.00', payerVpa: 'asha@okbank' });
    expect(c).toMatchObject({ paymentMode: 'Collect', payerVpa: 'asha@okbank' });
  });

  it('sends requestAmount, vpa, txnType and channel as integrations of the interface do', async () => {
    const c = await client().collections.initiate({
      senderId: senderId('C'),
      requestAmount: '7.25',
      vpa: 'counter@okaxis',
      txnType: 'COLLECT',
      payerVpa: 'asha@okbank',
      channel: 'pos-12',
    });
    expect(c).toMatchObject({
      amount: '7.25',
      requestAmount: '7.25',
      vpa: 'counter@okaxis',
      txnType: 'COLLECT',
      paymentMode: 'Collect',
      channel: 'pos-12',
    });
    const err = await caught(
      client().collections.initiate({ senderId: senderId('C'), requestAmount: '1.00', amount: '2.00' }),
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.code).toBe(4110);
  });

  it('credits the wallet once when the (simulated) payment succeeds', async () => {
    const payrail = client();
    const before = await payrail.wallets.balance(m.wallet_id);
    const c = await payrail.collections.initiate({ senderId: senderId('C'), amount: '99.50' });
    const moved = await payrail.sandbox.simulateCollection(c.txnId, 'SUCCESS', { utr: 'UPI123' });
    expect(moved).toMatchObject({ txnId: c.txnId, status: 'SUCCESS', utr: 'UPI123' });
    const done = await payrail.collections.waitFor({ txnId: c.txnId }, { intervalMs: 20, timeoutMs: 5_000 });
    expect(done.status).toBe('SUCCESS');
    const after = await payrail.wallets.balance(m.wallet_id);
    expect(Math.round((Number(after.balance) - Number(before.balance)) * 100)).toBe(9950);
    // A success cannot become a failure.
    const err = await caught(payrail.sandbox.simulateCollection(c.txnId, 'FAILED'));
    expect(err).toBeInstanceOf(ConflictError);
    expect(err).toMatchObject({ code: 4113, httpStatus: 409, operation: 'sandbox.simulateCollection' });
  });

  it('refuses a duplicate senderId with ConflictError carrying the existing collection', async () => {
    const payrail = client();
    const input = { senderId: senderId('C'), amount: '10.00' };
    const first = await payrail.collections.initiate(input);
    const err = await caught(payrail.collections.initiate(input));
    expect(err).toBeInstanceOf(ConflictError);
    expect(err).toMatchObject({ code: 4112, httpStatus: 409, operation: 'collections.initiate' });
    expect(((err as ConflictError).existing as Collection).txnId).toBe(first.txnId);
    expect((await payrail.collections.initiate(input, { onDuplicate: 'return' })).txnId).toBe(first.txnId);
  });
});

describe('collection errors', () => {
  let m: TestMerchant;
  let other: TestMerchant;
  beforeAll(async () => {
    [m, other] = await Promise.all([createMerchant(t.url, 'Col errors'), createMerchant(t.url, 'Col other')]);
  });

  it('ValidationError for amounts and fields (4110, 4111) and malformed txnIds (4105)', async () => {
    const payrail = clientFor(t.url, m);
    for (const amount of ['0.50', '100000.01', '1.234']) {
      const err = await caught(payrail.collections.initiate({ senderId: senderId('C'), amount }));
      expect(err).toBeInstanceOf(ValidationError);
      expect(err).toMatchObject({ code: 4110, httpStatus: 400 });
    }
    const field = await caught(
      payrail.collections.initiate({ senderId: senderId('C'), amount: '1.00', callbackUrl: 'ftp://x' }),
    );
    expect(field).toBeInstanceOf(ValidationError);
    expect(field).toMatchObject({ code: 4111 });
    const malformed = await caught(payrail.collections.get({ txnId: 'not-a-txn' }));
    expect(malformed).toBeInstanceOf(ValidationError);
    expect(malformed).toMatchObject({ code: 4105, httpStatus: 400, operation: 'collections.get' });
  });

  it('NotFoundError for unknown collections (4104) and other merchants’ (4107)', async () => {
    const payrail = clientFor(t.url, m);
    const unknown = await caught(payrail.collections.get({ txnId: 'CT01JD3K8Q5W2V7X9Y0Z1A2B3C4D' }));
    expect(unknown).toBeInstanceOf(NotFoundError);
    expect(unknown).toMatchObject({ code: 4104, httpStatus: 404 });
    const theirs = await clientFor(t.url, other).collections.initiate({ senderId: senderId('C'), amount: '1.00' });
    const forbidden = await caught(payrail.collections.get({ txnId: theirs.txnId }));
    expect(forbidden).toBeInstanceOf(NotFoundError);
    expect(forbidden).toMatchObject({ code: 4107, httpStatus: 403 });
    expect(await caught(payrail.collections.get({ senderId: senderId('nobody') }))).toMatchObject({ code: 4104 });
  });

  it('AuthenticationError for wrong credentials; a refused token (4008) is renewed once', async () => {
    const wrong = clientFor(t.url, { ...m, api_key: 'Z'.repeat(32) });
    const err = await caught(wrong.collections.initiate({ senderId: senderId('C'), amount: '1.00' }));
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err).toMatchObject({ code: 4001, operation: 'token' });

    let first: string | undefined;
    let tokens = 0;
    const spoiling: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      if (String(input).includes('/v1/auth/')) tokens++;
      const auth = headers.get('authorization');
      first ??= auth ?? undefined;
      if (auth && auth === first) headers.set('authorization', `${auth}x`);
      return fetch(input, { ...init, headers });
    };
    const payrail = clientFor(t.url, m, { fetch: spoiling });
    const c = await payrail.collections.initiate({ senderId: senderId('C'), amount: '1.00' });
    expect(c.status).toBe('INITIATED');
    expect(tokens).toBe(2);
  });

  it('RateLimitError past the per-minute limit of the status endpoint', async () => {
    const payrail = clientFor(t.url, other, { retry: { retries: 0 } });
    const c = await payrail.collections.initiate({ senderId: senderId('C'), amount: '1.00' });
    const results = await Promise.allSettled(
      Array.from({ length: 14 }, () => payrail.collections.get({ txnId: c.txnId })),
    );
    const limited = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0]).toBeInstanceOf(RateLimitError);
    expect(limited[0]).toMatchObject({ code: 4290, httpStatus: 429, operation: 'collections.get', retryable: true });
    expect((limited[0] as RateLimitError).retryAfterMs).toBeGreaterThan(0);
  });
});
