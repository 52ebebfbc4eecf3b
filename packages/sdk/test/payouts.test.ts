import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  BankRejectedError,
  BankUnavailableError,
  ConflictError,
  DecryptionError,
  InsufficientFundsError,
  LimitExceededError,
  NotFoundError,
  PayrailError,
  ValidationError,
  WaitTimeoutError,
  type Payout,
  type Scheme,
} from '../src/index.ts';
import {
  admin,
  clientFor,
  createMerchant,
  payoutInput,
  SANDBOX,
  senderId,
  startTestServer,
  type TestMerchant,
  type TestServer,
} from './support.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer('pglite');
});
afterAll(() => t?.close());

async function expectError<E extends PayrailError>(
  promise: Promise<unknown>,
  cls: new (...args: never[]) => E,
  fields: Partial<Pick<PayrailError, 'code' | 'httpStatus' | 'operation'>>,
): Promise<E> {
  const err = await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(cls);
  expect(err).toBeInstanceOf(PayrailError);
  expect(err).toMatchObject(fields);
  expect((err as PayrailError).message).not.toBe('');
  return err as E;
}

describe.each<Scheme>(['v2', 'v1'])('payouts with scheme %s', (scheme) => {
  let m: TestMerchant;
  beforeAll(async () => {
    m = await createMerchant(t.url, `Payouts ${scheme}`, '10000.00');
  });
  const client = () => clientFor(t.url, m, { scheme });

  it('initiates a payout and reads it back by transactionId and senderId', async () => {
    const payrail = client();
    const input = payoutInput(m.wallet_id, { amount: '2500', callbackUrl: 'http://127.0.0.1:9/hook' });
    const payout = await payrail.payouts.initiate(input);
    expect(payout).toMatchObject({
      senderId: input.senderId,
      walletId: m.wallet_id,
      amount: '2500.00',
      paymentMode: 'IMPS',
      status: 'INITIATED',
      utr: null,
      remarks: 'test payout',
      callbackUrl: 'http://127.0.0.1:9/hook',
      beneficiary: { name: 'Asha Rao', accountNumber: SANDBOX.success, ifsc: SANDBOX.ifsc },
    });
    expect(payout.transactionId).toMatch(/^PT[0-9A-Z]{26}$/);
    expect(payout.createdAt).toBeInstanceOf(Date);
    const byId = await payrail.payouts.get({ transactionId: payout.transactionId });
    const bySender = await payrail.payouts.get({ senderId: input.senderId });
    expect(byId.transactionId).toBe(payout.transactionId);
    expect(bySender.transactionId).toBe(payout.transactionId);
  });

  it('waits for a payout to succeed, reporting each status change', async () => {
    const payrail = client();
    const payout = await payrail.payouts.initiate(payoutInput(m.wallet_id));
    const seen: string[] = [];
    const done = await payrail.payouts.waitFor(
      { transactionId: payout.transactionId },
      { until: 'final', timeoutMs: 10_000, intervalMs: 20, onChange: (p) => seen.push(p.status) },
    );
    expect(done.status).toBe('SUCCESS');
    expect(done.utr).toMatch(/\S+/);
    expect(seen.at(-1)).toBe('SUCCESS');
  });

  it('waits through a failure to the refund; "outcome" stops at the failure', async () => {
    const payrail = client();
    const input = payoutInput(m.wallet_id, {
      beneficiary: { name: 'Ravi Kumar', accountNumber: SANDBOX.fail, ifsc: SANDBOX.ifsc },
    });
    const payout = await payrail.payouts.initiate(input);
    const outcome = await payrail.payouts.waitFor(
      { senderId: input.senderId },
      { until: 'outcome', timeoutMs: 10_000, intervalMs: 10 },
    );
    expect(['FAILED', 'REFUNDED']).toContain(outcome.status);
    const final = await payrail.payouts.waitFor({ transactionId: payout.transactionId }, { intervalMs: 20 });
    expect(final.status).toBe('REFUNDED');
  });

  it('waits for PENDING, gives up with WaitTimeoutError, and sees the operator resolve it', async () => {
    const payrail = client();
    const input = payoutInput(m.wallet_id, {
      beneficiary: { name: 'Meera Iyer', accountNumber: SANDBOX.pending, ifsc: SANDBOX.ifsc },
    });
    const payout = await payrail.payouts.initiate(input);
    await payrail.payouts.waitFor({ transactionId: payout.transactionId }, { until: 'PENDING', intervalMs: 20 });
    const timeout = await expectError(
      payrail.payouts.waitFor({ transactionId: payout.transactionId }, { timeoutMs: 300, intervalMs: 50 }),
      WaitTimeoutError,
      { code: 'WAIT_TIMEOUT', operation: 'payouts.waitFor' },
    );
    expect((timeout.last as Payout).status).toBe('PENDING');
    const resolved = await admin(t.url, 'POST', `/admin/v1/payouts/${payout.transactionId}/resolve`, {
      status: 'SUCCESS',
      utr_number: 'UTR123456',
    });
    expect(resolved.status).toBe(200);
    const done = await payrail.payouts.waitFor({ transactionId: payout.transactionId }, { intervalMs: 20 });
    expect(done).toMatchObject({ status: 'SUCCESS', utr: 'UTR123456' });
  });

  it('reads the wallet balance with the amount on hold', async () => {
    const fresh = await createMerchant(t.url, `Balance ${scheme}`, '1000.00');
    const payrail = clientFor(t.url, fresh, { scheme });
    const before = await payrail.wallets.balance(fresh.wallet_id);
    expect(before).toMatchObject({
      walletId: fresh.wallet_id,
      balance: '1000.00',
      availableBalance: '1000.00',
      onHold: '0.00',
      currency: 'INR',
    });
    expect(before.updatedAt).toBeInstanceOf(Date);
    await payrail.payouts.initiate(
      payoutInput(fresh.wallet_id, {
        amount: '250.50',
        beneficiary: { name: 'Meera Iyer', accountNumber: SANDBOX.pending, ifsc: SANDBOX.ifsc },
      }),
    );
    const after = await payrail.wallets.balance(fresh.wallet_id);
    expect(after).toMatchObject({ balance: '749.50', onHold: '250.50' });
  });

  it('refuses a duplicate senderId with ConflictError carrying the existing payout', async () => {
    const payrail = client();
    const input = payoutInput(m.wallet_id);
    const first = await payrail.payouts.initiate(input);
    const conflict = await expectError(payrail.payouts.initiate(input), ConflictError, {
      code: 4009,
      httpStatus: 409,
      operation: 'payouts.initiate',
    });
    expect((conflict.existing as Payout).transactionId).toBe(first.transactionId);
    // The message says which payout holds the senderId and how to get it back instead of an error.
    expect(conflict.matchesRequest).toBe(true);
    expect(conflict.message).toContain(`senderId ${input.senderId} already holds payout ${first.transactionId}`);
    expect(conflict.message).toContain("pass { onDuplicate: 'return' } to get it back");
    // Resuming a batch: the same request returns the payout that holds the senderId.
    const again = await payrail.payouts.initiate(input, { onDuplicate: 'return' });
    expect(again.transactionId).toBe(first.transactionId);
    // A different payout under the same senderId is never taken for it.
    const different = await expectError(
      payrail.payouts.initiate({ ...input, amount: '101.00' }, { onDuplicate: 'return' }),
      ConflictError,
      {
        code: 4009,
      },
    );
    expect(different.matchesRequest).toBe(false);
    expect((different.existing as Payout).transactionId).toBe(first.transactionId);
    expect(different.message).toMatch(/with different details .*onDuplicate: 'return'.* use a new senderId/);
    expect(different.toJSON()).toMatchObject({ type: 'ConflictError', matchesRequest: false });
  });
});

describe("a baseUrl ending in /api (the provider's documented form)", () => {
  it.each(['/api', '/api/'])('works with %s: token, payout to SUCCESS, balance', async (suffix) => {
    const m = await createMerchant(t.url, `Under api ${suffix}`, '1000.00');
    const payrail = clientFor(`${t.url}${suffix}`, m);
    expect(payrail.baseUrl).toBe(`${t.url}/api`);
    const payout = await payrail.payouts.initiate(payoutInput(m.wallet_id));
    const done = await payrail.payouts.waitFor(
      { senderId: payout.senderId },
      { until: 'final', timeoutMs: 10_000, intervalMs: 20 },
    );
    expect(done.status).toBe('SUCCESS');
    expect((await payrail.wallets.balance(m.wallet_id)).balance).toBe('900.00');
  });
});

describe('payout errors, one class per family', () => {
  let m: TestMerchant;
  beforeAll(async () => {
    m = await createMerchant(t.url, 'Errors', '500.00');
  });
  const client = () => clientFor(t.url, m);

  it('AuthenticationError for wrong credentials (V2 and V1)', async () => {
    for (const scheme of ['v2', 'v1'] as const) {
      const payrail = clientFor(t.url, { ...m, secret_key: 'A'.repeat(16) }, { scheme });
      await expectError(payrail.wallets.balance(m.wallet_id), AuthenticationError, {
        code: 4001,
        httpStatus: 401,
        operation: 'token',
      });
    }
  });

  it('ValidationError for invalid fields, with the server code', async () => {
    const payrail = client();
    const cases: [Partial<Parameters<typeof payoutInput>[1]>, number][] = [
      [{ beneficiary: { name: 'Asha Rao', accountNumber: SANDBOX.success, ifsc: 'BAD' } }, 4007],
      [{ beneficiary: { name: 'Asha Rao', accountNumber: '12', ifsc: SANDBOX.ifsc } }, 4008],
      [{ beneficiary: { name: '', accountNumber: SANDBOX.success, ifsc: SANDBOX.ifsc } }, 4003],
      [{ amount: '1.234' }, 4004],
      [{ amount: '0.50' }, 4005],
      [{ amount: '600000.00' }, 4006],
      [{ paymentMode: 'UPI' as 'IMPS' }, 4012],
      [{ walletId: 'WL00000000000000000000000000' }, 4016],
      [{ senderId: 'has spaces' }, 4017],
    ];
    for (const [overrides, code] of cases) {
      await expectError(payrail.payouts.initiate(payoutInput(m.wallet_id, overrides)), ValidationError, {
        code,
        httpStatus: 400,
        operation: 'payouts.initiate',
      });
    }
    await expectError(payrail.payouts.get({ transactionId: 'PT1', senderId: 'x' } as never), ValidationError, {
      code: 'INVALID_LOOKUP',
      operation: 'payouts.get',
    });
  });

  it('InsufficientFundsError when the wallet cannot cover the amount', async () => {
    await expectError(
      client().payouts.initiate(payoutInput(m.wallet_id, { amount: '5000.00' })),
      InsufficientFundsError,
      {
        code: 4002,
        httpStatus: 422,
      },
    );
  });

  it('LimitExceededError beyond the daily allowance', async () => {
    const limited = await createMerchant(t.url, 'Limited', '1000.00');
    await admin(t.url, 'PATCH', `/admin/v1/merchants/${limited.merchant_id}`, { daily_limit: '150.00' });
    const payrail = clientFor(t.url, limited);
    await payrail.payouts.initiate(payoutInput(limited.wallet_id, { amount: '100.00' }));
    const err = await expectError(
      payrail.payouts.initiate(payoutInput(limited.wallet_id, { amount: '100.00' })),
      LimitExceededError,
      { code: 4010, httpStatus: 422 },
    );
    expect(err.period).toBe('daily');
  });

  it('NotFoundError for an unknown payout or wallet', async () => {
    const payrail = client();
    await expectError(payrail.payouts.get({ transactionId: 'PT01JD3K8Q5W2V7X9Y0Z1A2B3C4D' }), NotFoundError, {
      code: 4103,
      httpStatus: 404,
      operation: 'payouts.get',
    });
    await expectError(payrail.payouts.get({ senderId: senderId('nobody') }), NotFoundError, { code: 4103 });
    await expectError(payrail.wallets.balance('WL01JD3K8Q5W2V7X9Y0Z1A2B3C4D'), NotFoundError, {
      code: 4202,
      httpStatus: 404,
      operation: 'wallets.balance',
    });
  });

  it('NotFoundError for another merchant’s payout (no leak of its existence)', async () => {
    const other = await createMerchant(t.url, 'Other', '500.00');
    const theirs = await clientFor(t.url, other).payouts.initiate(payoutInput(other.wallet_id));
    await expectError(client().payouts.get({ transactionId: theirs.transactionId }), NotFoundError, { code: 4103 });
  });

  it('BankUnavailableError when the bank is down (retryable), BankRejectedError when it refuses', async () => {
    const payrail = client();
    const down = await expectError(
      payrail.payouts.initiate(
        payoutInput(m.wallet_id, {
          beneficiary: { name: 'Asha Rao', accountNumber: SANDBOX.success, ifsc: 'DOWN0000001' },
        }),
      ),
      BankUnavailableError,
      { code: 4014, httpStatus: 503 },
    );
    expect(down.retryable).toBe(true);
    await expectError(
      payrail.payouts.initiate(
        payoutInput(m.wallet_id, {
          beneficiary: { name: 'Asha Rao', accountNumber: SANDBOX.success, ifsc: 'BLOK0000001' },
        }),
      ),
      BankRejectedError,
      { code: 4015, httpStatus: 422 },
    );
    const rejected = await expectError(
      payrail.payouts.initiate(
        payoutInput(m.wallet_id, {
          beneficiary: { name: 'Asha Rao', accountNumber: SANDBOX.verificationFails, ifsc: SANDBOX.ifsc },
        }),
      ),
      BankRejectedError,
      { code: 4013, httpStatus: 422 },
    );
    expect(rejected.retryable).toBe(false);
    expect(rejected.toJSON()).toMatchObject({ type: 'BankRejectedError', code: 4013, operation: 'payouts.initiate' });
    // Nothing was taken from the wallet by the refusals.
    expect((await payrail.wallets.balance(m.wallet_id)).balance).toBe('500.00');
  });

  it('the other 4014, a payload the server cannot decrypt, is a DecryptionError (not retried, not bank down)', async () => {
    let initiations = 0;
    // The real server's answer to a payload sealed with other keys: the body is swapped on its way out.
    const tampering: typeof fetch = (input, init) => {
      if (String(input).endsWith('/payout/v1/initiate')) {
        initiations++;
        const payload = Buffer.from('not sealed with this merchant’s key').toString('base64');
        return fetch(input, { ...init, body: JSON.stringify({ payload }) });
      }
      return fetch(input, init);
    };
    const payrail = clientFor(t.url, m, { fetch: tampering });
    const err = await expectError(payrail.payouts.initiate(payoutInput(m.wallet_id)), DecryptionError, {
      code: 4014,
      httpStatus: 400,
      operation: 'payouts.initiate',
    });
    expect(err).toBeInstanceOf(ValidationError); // as 4014 (undecryptable) always was
    expect(err).not.toBeInstanceOf(BankUnavailableError);
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(/decrypt/i);
    expect(initiations).toBe(1);
  });
});
