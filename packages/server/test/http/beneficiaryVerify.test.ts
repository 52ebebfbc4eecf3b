import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, http } from '../support/merchantClient.ts';
import { expectRefused, fundedMerchant, PLAIN_BENEFICIARY, SANDBOX, senderId } from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

/** docs/merchant/bulk-and-verification.md through real HTTP: POST /payout/v1/beneficiary/verify and the merchant's `required` setting. */

const VERIFICATION_ID = /^BV[0-9A-HJKMNP-TV-Z]{26}$/;

const sandboxAccount = (account: string, name = 'Rahul K. Verma') => ({
  beneficiary_name: name,
  beneficiary_acc_number: account,
  beneficiary_ifsc: SANDBOX.ifsc,
});

describe.each(ENGINES)('beneficiary verification on %s', (engine) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(engine);
  });
  afterAll(() => t?.close());

  it('answers the sandbox accounts: 100000000005 is RAHUL KUMAR VERMA, 100000000004 INVALID, others VALID', async () => {
    const f = await fundedMerchant(t.url, 'v2');
    const known = await f.client.post('/payout/v1/beneficiary/verify', sandboxAccount('100000000005'));
    expect({ http: known.status, code: known.body.resp_code }).toEqual({ http: 200, code: 2000 });
    expect(known.data).toMatchObject({
      verification_id: expect.stringMatching(VERIFICATION_ID),
      account_status: 'VALID',
      name_at_bank: 'RAHUL KUMAR VERMA',
      name_match_result: 'GOOD_PARTIAL_MATCH',
      bank_name: 'Payrail Sandbox Bank',
      utr: expect.stringMatching(/^\d{12}$/),
      created_at: expect.stringMatching(/Z$/),
    });
    expect(known.data?.name_match_score).toBeGreaterThanOrEqual(80);
    expect(Object.keys(known.data ?? {}).sort()).toEqual(
      [
        'account_status',
        'bank_name',
        'created_at',
        'name_at_bank',
        'name_match_result',
        'name_match_score',
        'utr',
        'verification_id',
      ].sort(),
    );

    const other = await f.client.post('/payout/v1/beneficiary/verify', sandboxAccount('100000000005', 'Priya Singh'));
    expect(other.data).toMatchObject({ account_status: 'VALID', name_match_result: 'NO_MATCH' });

    const invalid = await f.client.post('/payout/v1/beneficiary/verify', sandboxAccount('100000000004'));
    expect(invalid.body.resp_code).toBe(2000);
    expect(invalid.data).toMatchObject({
      account_status: 'INVALID',
      name_at_bank: '',
      name_match_score: 0,
      name_match_result: 'NO_MATCH',
    });

    // V1 session, flat plaintext, any other account: VALID in the given name in capitals. (Names in Indian
    // scripts reach the verifier once initiation's name rule accepts combining marks; the matcher handles them,
    // see test/domain/nameMatch.test.ts.)
    const v1 = await fundedMerchant(t.url, 'v1');
    const named = await v1.client.post('/payout/v1/beneficiary/verify', {
      ...PLAIN_BENEFICIARY,
      beneficiary_name: "Mr. Rahul D'Souza",
    });
    expect(named.data).toMatchObject({
      account_status: 'VALID',
      name_at_bank: "MR. RAHUL D'SOUZA",
      name_match_score: 100,
      name_match_result: 'EXACT_MATCH',
      bank_name: 'HDFC Bank',
    });
    const plain = await v1.client.post('/payout/v1/beneficiary/verify', { ...PLAIN_BENEFICIARY });
    expect(plain.data).toMatchObject({ name_at_bank: 'ASHA RAO', name_match_result: 'EXACT_MATCH' });
  });

  it('checks the fields as initiation does: 4003, 4007, 4008; 4014 undecryptable; 4001 without a token', async () => {
    const f = await fundedMerchant(t.url, 'v2');
    const refused = async (plain: unknown, code: number, httpStatus: number) => {
      const res = await f.client.post('/payout/v1/beneficiary/verify', plain);
      expect({ code: res.body.resp_code, http: res.status }).toEqual({ code, http: httpStatus });
    };
    await refused({ ...PLAIN_BENEFICIARY, beneficiary_name: '' }, 4003, 400);
    await refused({ ...PLAIN_BENEFICIARY, beneficiary_name: 'Robert; DROP TABLE' }, 4003, 400);
    await refused({ ...PLAIN_BENEFICIARY, beneficiary_name: 'x'.repeat(101) }, 4003, 400);
    await refused({ beneficiary_acc_number: '123456789', beneficiary_ifsc: 'HDFC0001234' }, 4003, 400);
    await refused({ ...PLAIN_BENEFICIARY, beneficiary_ifsc: 'hdfc0001234' }, 4007, 400);
    await refused({ ...PLAIN_BENEFICIARY, beneficiary_ifsc: undefined }, 4007, 400);
    await refused({ ...PLAIN_BENEFICIARY, beneficiary_acc_number: '12345678' }, 4008, 400);
    await refused({ ...PLAIN_BENEFICIARY, beneficiary_acc_number: 123456789012 }, 4008, 400);
    await refused(['not', 'an', 'object'], 4014, 400);
    const garbled = await http(t.url, 'POST', '/payout/v1/beneficiary/verify', {
      body: { payload: 'garbage' },
      headers: f.client.auth(),
    });
    expect({ code: garbled.body.resp_code, http: garbled.status }).toEqual({ code: 4014, http: 400 });
    const noToken = await http(t.url, 'POST', '/payout/v1/beneficiary/verify', { body: { payload: 'x' } });
    expect({ code: noToken.body.resp_code, http: noToken.status }).toEqual({ code: 4001, http: 401 });
  });

  it('required: initiation (single and bulk) refuses INVALID accounts and low scores with 4013, reusing verifications', async () => {
    const f = await fundedMerchant(t.url, 'v2', '1000.00');
    const m = f.merchant;
    const view = await admin(t.url, 'GET', `/admin/v1/merchants/${m.merchant_id}`);
    expect(view.body).toMatchObject({ beneficiary_verification: 'off', min_name_match_score: 80 });
    const patched = await admin(t.url, 'PATCH', `/admin/v1/merchants/${m.merchant_id}`, {
      beneficiary_verification: 'required',
    });
    expect(patched.body).toMatchObject({
      beneficiary_verification: 'required',
      min_name_match_score: 80,
      settings: { beneficiary_verification: 'required', min_name_match_score: 80 },
    });
    expect(
      (await admin(t.url, 'PATCH', `/admin/v1/merchants/${m.merchant_id}`, { beneficiary_verification: 'maybe' }))
        .status,
    ).toBe(400);
    expect(
      (await admin(t.url, 'PATCH', `/admin/v1/merchants/${m.merchant_id}`, { min_name_match_score: 101 })).status,
    ).toBe(400);

    const payout = (name: string, account: string, amount = '10.00') => ({
      sender_id: senderId('vr'),
      wallet_id: m.wallet_id,
      payment_mode: 'IMPS',
      amount,
      beneficiary: sandboxAccount(account, name),
    });
    // Below the minimum: 4013 naming the score; nothing recorded.
    const low = await expectRefused(f, payout('Priya Singh', '100000000005'), 4013, 422);
    expect(low.message).toMatch(/name match score \d+ is below the minimum 80/);
    // A good enough name passes.
    const ok = await f.client.post('/payout/v1/initiate', payout('Rahul Verma', '100000000005'));
    expect(ok.body.resp_code).toBe(2000);
    // INVALID: 4013 saying so (the sandbox rail's own check of 100000000004 answers first, with the same code).
    const invalid = await expectRefused(f, payout('Rahul Verma', '100000000004'), 4013, 422);
    expect(invalid.message).toMatch(/verification failed/i);

    // The verification of 100000000005 is reused: the bank (sandbox) is not asked again within 30 days.
    const before = await t.db.query<{ n: bigint }>(
      `SELECT count(*)::int8 AS n FROM beneficiary_verifications WHERE merchant_id = $1`,
      [m.merchant_id],
    );
    const bulk = await f.client.post('/payout/v1/bulk', {
      batch_id: senderId('vb'),
      items: [
        payout('R. K. Verma', '100000000005'),
        payout('Amit Patel', '100000000005'),
        payout('Asha Rao', '200000000006'),
        payout('Asha Rao', '200000000006', '20.00'),
      ],
    });
    expect(bulk.body.resp_code).toBe(2000);
    const items = bulk.data?.items as { resp_code: number; resp_message: string }[];
    expect(items.map((i) => i.resp_code)).toEqual([2000, 4013, 2000, 2000]);
    expect(items[1]?.resp_message).toMatch(/below the minimum 80/);
    const after = await t.db.query<{ n: bigint }>(
      `SELECT count(*)::int8 AS n FROM beneficiary_verifications WHERE merchant_id = $1`,
      [m.merchant_id],
    );
    // One new verification: the new account, once for its two items.
    expect(Number(after.rows[0]?.n) - Number(before.rows[0]?.n)).toBe(1);

    // Past 30 days a verification is not reused: the next initiation asks the bank (sandbox) again.
    await t.db.query(
      `UPDATE beneficiary_verifications SET created_at = created_at - interval '31 days'
        WHERE merchant_id = $1 AND account_number = '200000000006'`,
      [m.merchant_id],
    );
    const fresh = await f.client.post('/payout/v1/initiate', payout('Asha Rao', '200000000006'));
    expect(fresh.body.resp_code).toBe(2000);
    const later = await t.db.query<{ n: bigint }>(
      `SELECT count(*)::int8 AS n FROM beneficiary_verifications WHERE merchant_id = $1 AND account_number = '200000000006'`,
      [m.merchant_id],
    );
    expect(Number(later.rows[0]?.n)).toBe(2);

    // A lower minimum lets the moderate match through; off turns the check off.
    await admin(t.url, 'PATCH', `/admin/v1/merchants/${m.merchant_id}`, { min_name_match_score: 0 });
    expect((await f.client.post('/payout/v1/initiate', payout('Priya Singh', '100000000005'))).body.resp_code).toBe(
      2000,
    );
    await admin(t.url, 'PATCH', `/admin/v1/merchants/${m.merchant_id}`, { beneficiary_verification: 'off' });
  });
});

describe('beneficiary verification in live mode without a verifying connector', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer('pglite', { env: { PAYRAIL_MODE: 'live' } });
  });
  afterAll(() => t?.close());

  it('answers 4013 saying that verification is not available, on the route and at initiation when required', async () => {
    const f = await fundedMerchant(t.url, 'v2', '100.00');
    const real = {
      beneficiary_name: 'Asha Rao',
      beneficiary_ifsc: 'HDFC0000001',
      beneficiary_acc_number: '123456789012',
    };
    const res = await f.client.post('/payout/v1/beneficiary/verify', real);
    expect({ code: res.body.resp_code, http: res.status }).toEqual({ code: 4013, http: 422 });
    expect(res.body.resp_message).toMatch(/not available/);
    // The field checks still come first.
    const bad = await f.client.post('/payout/v1/beneficiary/verify', { ...real, beneficiary_ifsc: 'SBOX0000001' });
    expect(bad.body.resp_code).toBe(4007);

    await admin(t.url, 'PATCH', `/admin/v1/merchants/${f.merchant.merchant_id}`, {
      beneficiary_verification: 'required',
    });
    const refused = await expectRefused(
      f,
      {
        sender_id: senderId('lv'),
        wallet_id: f.merchant.wallet_id,
        payment_mode: 'IMPS',
        amount: '1.00',
        beneficiary: real,
      },
      4013,
      422,
    );
    expect(refused.message).toMatch(/not available/);
  });
});
