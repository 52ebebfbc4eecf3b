import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BankRejectedError,
  BatchRejectedError,
  ConflictError,
  ValidationError,
  type BulkResult,
} from '../src/index.ts';
import { clientFor, createMerchant, payoutInput, senderId, startTestServer, type TestServer } from './support.ts';

/** payrail.payouts.bulk / bulkStatus and payrail.beneficiaries.verify against a real server. */
describe('SDK: bulk payouts and beneficiary verification', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer('pglite');
  });
  afterAll(() => t?.close());

  it('bulk: verdicts per item, dry run first, then the real run; bulkStatus pages', async () => {
    const m = await createMerchant(t.url, 'SDK Bulk', '250.00');
    const payrail = clientFor(t.url, m, { scheme: 'v1' });
    const items = [
      payoutInput(m.wallet_id),
      payoutInput(m.wallet_id),
      payoutInput(m.wallet_id), // 4002: 300 of 250
      payoutInput(m.wallet_id, { paymentMode: 'NEFT', amount: '50.00' }),
    ];
    const batchId = senderId('sdkb');
    const dry = await payrail.payouts.bulk({ batchId, items, dryRun: true });
    expect(dry).toMatchObject({
      batchId,
      dryRun: true,
      summary: { accepted: 3, refused: 1, amountAccepted: '250.00' },
    });
    expect(dry.items.map((i) => i.code)).toEqual([2000, 2000, 4002, 2000]);
    expect(dry.items.every((i) => i.transactionId === null)).toBe(true);

    const real = await payrail.payouts.bulk({ batchId, items });
    expect(real.items.map((i) => [i.code, i.ok])).toEqual([
      [2000, true],
      [2000, true],
      [4002, false],
      [2000, true],
    ]);
    expect(real.items[0]).toMatchObject({ senderId: items[0]?.senderId, status: 'INITIATED' });
    expect(real.items[0]?.transactionId).toMatch(/^PT/);
    const status = await payrail.payouts.bulkStatus(batchId);
    expect(status).toMatchObject({ batchId, nextCursor: null, summary: { items: 4, accepted: 3, refused: 1 } });
    expect(status.items).toHaveLength(4);
    expect(status.createdAt).toBeInstanceOf(Date);

    // The same batchId again: ConflictError with the existing batch, or that batch with onDuplicate 'return'.
    const err = await payrail.payouts.bulk({ batchId, items }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect(((err as ConflictError<BulkResult>).existing as BulkResult).items[0]?.transactionId).toBe(
      real.items[0]?.transactionId,
    );
    const returned = await payrail.payouts.bulk({ batchId, items }, { onDuplicate: 'return' });
    expect(returned.items.map((i) => i.transactionId)).toEqual(real.items.map((i) => i.transactionId));
  });

  it('typed errors: BatchRejectedError with every verdict, ValidationError for 4019', async () => {
    const m = await createMerchant(t.url, 'SDK Atomic', '1000.00');
    const payrail = clientFor(t.url, m);
    const items = [payoutInput(m.wallet_id), payoutInput(m.wallet_id, { amount: '0.10' })];
    const err = await payrail.payouts.bulk({ batchId: senderId('atom'), items, atomic: true }).catch((e) => e);
    expect(err).toBeInstanceOf(BatchRejectedError);
    expect(err).toMatchObject({ code: 4018, httpStatus: 422 });
    expect((err as BatchRejectedError<BulkResult>).result?.items.map((i) => i.code)).toEqual([2000, 4005]);
    const empty = await payrail.payouts.bulk({ batchId: senderId('empty'), items: [] }).catch((e) => e);
    expect(empty).toBeInstanceOf(ValidationError);
    expect(empty).toMatchObject({ code: 4019, httpStatus: 400 });
  });

  it('beneficiaries.verify', async () => {
    const m = await createMerchant(t.url, 'SDK Verify');
    const payrail = clientFor(t.url, m);
    const v = await payrail.beneficiaries.verify({
      name: 'Rahul Verma',
      accountNumber: '100000000005',
      ifsc: 'SBOX0000001',
    });
    expect(v).toMatchObject({
      accountStatus: 'VALID',
      nameAtBank: 'RAHUL KUMAR VERMA',
      nameMatchResult: 'GOOD_PARTIAL_MATCH',
    });
    expect(v.verificationId).toMatch(/^BV/);
    const invalid = await payrail.beneficiaries.verify({
      name: 'X Y',
      accountNumber: '100000000004',
      ifsc: 'SBOX0000001',
    });
    expect(invalid.accountStatus).toBe('INVALID');
    const bad = await payrail.beneficiaries
      .verify({ name: 'X', accountNumber: '1', ifsc: 'SBOX0000001' })
      .catch((e) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    expect(bad).toMatchObject({ code: 4008 });
    expect(BankRejectedError).toBeDefined();
  });
});
