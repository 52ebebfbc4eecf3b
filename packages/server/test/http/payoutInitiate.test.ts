import { encryptJson, encryptV1, encryptV2, SCHEMES, type Scheme } from '@payrail/protocol';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createMerchant, http, MerchantClient, type TestMerchant } from '../support/merchantClient.ts';
import {
  expectLedgerOk,
  expectRefused,
  fundedMerchant,
  initiateOk,
  ISO_UTC,
  listPayouts,
  payoutRequest,
  PLAIN_BENEFICIARY,
  SANDBOX,
  senderId,
  setLimits,
  shapeOf,
  snapshot,
  TRANSACTION_ID,
  waitForStatus,
  walletBalance,
  type Funded,
  type PayoutInput,
  type Shape,
  type Snapshot,
} from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

const JWT_SECRET = 'payout-initiate-test-jwt-secret-0123456789';

/**
 * Private callback addresses are refused here (live-mode policy), so that rule is tested through initiation;
 * accepted callbacks point to a documentation address that nothing answers, hence the short webhook timeout.
 */
const ENV = {
  PAYRAIL_WEBHOOK_ALLOW_PRIVATE: 'false',
  PAYRAIL_WEBHOOK_TIMEOUT_MS: '200',
  PAYRAIL_JWT_SECRET: JWT_SECRET,
  PAYRAIL_RATE_LIMIT_PER_MINUTE: '100000',
};
const PUBLIC_CALLBACK = 'https://203.0.113.7/payrail/hook';

interface Ctx {
  /** A valid request of the session's usual shape, with beneficiary fields from `input` and top-level `over`. */
  req(input?: Partial<PayoutInput>, over?: Record<string, unknown>): Record<string, unknown>;
  /** The same without any beneficiary (neither the nested object nor flat fields). */
  noBeneficiary(): Record<string, unknown>;
  merchant: TestMerchant;
  otherWallet: string;
}

interface Case {
  name: string;
  code: number;
  http: number;
  build(c: Ctx): Record<string, unknown>;
  /** The message must name the offending field. */
  message?: RegExp;
}

const field = (name: string, code: number, http: number, build: Case['build'], message?: RegExp): Case => ({
  name,
  code,
  http,
  build,
  message,
});

/** One case per check of docs/merchant/api-reference.md, in the contract's order. Each merchant has 1000.00. */
const CHECK_CASES: Case[] = [
  // sender_id (4017)
  field('sender_id missing', 4017, 400, (c) => c.req({}, { sender_id: undefined }), /sender_id/),
  field('sender_id empty', 4017, 400, (c) => c.req({}, { sender_id: '' }), /sender_id/),
  field('sender_id of 51 characters', 4017, 400, (c) => c.req({}, { sender_id: 'a'.repeat(51) }), /sender_id/),
  field('sender_id with a space', 4017, 400, (c) => c.req({}, { sender_id: 'has space' }), /sender_id/),
  field('sender_id with a slash', 4017, 400, (c) => c.req({}, { sender_id: 'a/b' }), /sender_id/),
  field('sender_id with non-ASCII letters', 4017, 400, (c) => c.req({}, { sender_id: 'Zürich-1' }), /sender_id/),
  field('sender_id a number', 4017, 400, (c) => c.req({}, { sender_id: 12345 }), /sender_id/),
  // wallet_id (4016)
  field('wallet_id missing', 4016, 400, (c) => c.req({}, { wallet_id: undefined })),
  field('wallet_id garbage', 4016, 400, (c) => c.req({}, { wallet_id: 'wallet-1' })),
  field('wallet_id unknown', 4016, 400, (c) => c.req({}, { wallet_id: 'WL01ARZ3NDEKTSV4RRFFQ69G5FAV' })),
  field("wallet_id another merchant's", 4016, 400, (c) => c.req({}, { wallet_id: c.otherWallet })),
  field('wallet_id is a merchant_id', 4016, 400, (c) => c.req({}, { wallet_id: c.merchant.merchant_id })),
  // payment_mode (4012)
  field('payment_mode missing', 4012, 400, (c) => c.req({}, { payment_mode: undefined })),
  field('payment_mode UPI', 4012, 400, (c) => c.req({ payment_mode: 'UPI' })),
  field('payment_mode lower case', 4012, 400, (c) => c.req({ payment_mode: 'imps' })),
  field('payment_mode a number', 4012, 400, (c) => c.req({}, { payment_mode: 1 })),
  // amount (4004)
  field('amount "1e3"', 4004, 400, (c) => c.req({ amount: '1e3' })),
  field('amount "-5"', 4004, 400, (c) => c.req({ amount: '-5' })),
  field('amount "+5"', 4004, 400, (c) => c.req({ amount: '+5' })),
  field('amount "10.123"', 4004, 400, (c) => c.req({ amount: '10.123' })),
  field('amount 10.123 (number)', 4004, 400, (c) => c.req({ amount: 10.123 })),
  field('amount "abc"', 4004, 400, (c) => c.req({ amount: 'abc' })),
  field('amount " 10"', 4004, 400, (c) => c.req({ amount: ' 10' })),
  field('amount "10 "', 4004, 400, (c) => c.req({ amount: '10 ' })),
  field('amount "1,000"', 4004, 400, (c) => c.req({ amount: '1,000' })),
  field('amount 0 (number)', 4004, 400, (c) => c.req({ amount: 0 })),
  field('amount "0.00"', 4004, 400, (c) => c.req({ amount: '0.00' })),
  field('amount -5 (number)', 4004, 400, (c) => c.req({ amount: -5 })),
  field('amount 1e21 (number)', 4004, 400, (c) => c.req({ amount: 1e21 })),
  field('amount empty', 4004, 400, (c) => c.req({ amount: '' })),
  field('amount null', 4004, 400, (c) => c.req({}, { amount: null })),
  field('amount missing', 4004, 400, (c) => c.req({}, { amount: undefined })),
  field('amount true', 4004, 400, (c) => c.req({}, { amount: true })),
  // per-mode minimum (4005) and maximum (4006)
  // The message names the mode's bound and the modes that take the amount (issue 32).
  field(
    'IMPS below 1',
    4005,
    400,
    (c) => c.req({ payment_mode: 'IMPS', amount: '0.99' }),
    /^Amount below the minimum: IMPS payouts start at 1\.00 rupees$/,
  ),
  field('NEFT below 1', 4005, 400, (c) => c.req({ payment_mode: 'NEFT', amount: 0.5 })),
  field('RTGS below 200000', 4005, 400, (c) => c.req({ payment_mode: 'RTGS', amount: '199999.99' })),
  field(
    'RTGS of 87000',
    4005,
    400,
    (c) => c.req({ payment_mode: 'RTGS', amount: '87000' }),
    /^Amount below the minimum: RTGS payouts start at 200000\.00 rupees; IMPS or NEFT can send 87000\.00$/,
  ),
  field(
    'IMPS above 500000',
    4006,
    400,
    (c) => c.req({ payment_mode: 'IMPS', amount: '500000.01' }),
    /^Amount above the maximum: IMPS payouts go up to 500000\.00 rupees; NEFT or RTGS can send 500000\.01$/,
  ),
  field('NEFT above 1000000', 4006, 400, (c) => c.req({ payment_mode: 'NEFT', amount: 1000000.01 })),
  field('RTGS above 100000000', 4006, 400, (c) => c.req({ payment_mode: 'RTGS', amount: '100000000.01' })),
  // beneficiary (4003)
  field('beneficiary missing', 4003, 400, (c) => c.noBeneficiary()),
  field('beneficiary not an object', 4003, 400, (c) => ({ ...c.noBeneficiary(), beneficiary: 'Asha Rao' })),
  field('beneficiary_name with digits', 4003, 400, (c) => c.req({ beneficiary_name: 'Asha Rao 2' })),
  field('beneficiary_name with @', 4003, 400, (c) => c.req({ beneficiary_name: 'asha@rao' })),
  field('beneficiary_name of 101 characters', 4003, 400, (c) => c.req({ beneficiary_name: 'A'.repeat(101) })),
  field('beneficiary_name empty', 4003, 400, (c) => c.req({ beneficiary_name: '' })),
  field('beneficiary_name only spaces', 4003, 400, (c) => c.req({ beneficiary_name: '   ' })),
  // IFSC (4007)
  field('IFSC with a fifth character not 0', 4007, 400, (c) => c.req({ beneficiary_ifsc: 'HDFC1001234' })),
  field('IFSC lower case', 4007, 400, (c) => c.req({ beneficiary_ifsc: 'hdfc0001234' })),
  field('IFSC of 10 characters', 4007, 400, (c) => c.req({ beneficiary_ifsc: 'HDFC000123' })),
  field('IFSC starting with a digit', 4007, 400, (c) => c.req({ beneficiary_ifsc: '1DFC0001234' })),
  // account number (4008)
  field('account of 8 digits', 4008, 400, (c) => c.req({ beneficiary_acc_number: '12345678' })),
  field('account of 19 digits', 4008, 400, (c) => c.req({ beneficiary_acc_number: '1'.repeat(19) })),
  field('account with letters', 4008, 400, (c) => c.req({ beneficiary_acc_number: '12345678901A' })),
  field('account empty', 4008, 400, (c) => c.req({ beneficiary_acc_number: '' })),
  // remarks and callback_url (4017, the message names the field)
  field('remarks of 256 characters', 4017, 400, (c) => c.req({ remarks: 'r'.repeat(256) }), /remarks/),
  field('remarks a number', 4017, 400, (c) => c.req({}, { remarks: 5 }), /remarks/),
  field('remarks with a NUL character', 4017, 400, (c) => c.req({ remarks: 'a\u0000b' }), /remarks/),
  field('callback_url ftp', 4017, 400, (c) => c.req({ callback_url: 'ftp://203.0.113.7/x' }), /callback_url/),
  field('callback_url not a URL', 4017, 400, (c) => c.req({ callback_url: 'not a url' }), /callback_url/),
  field('callback_url relative', 4017, 400, (c) => c.req({ callback_url: '/hooks/payrail' }), /callback_url/),
  field('callback_url a number', 4017, 400, (c) => c.req({}, { callback_url: 42 }), /callback_url/),
  field(
    'callback_url with a NUL character',
    4017,
    400,
    (c) => c.req({ callback_url: `${PUBLIC_CALLBACK}\u0000x` }),
    /callback_url/,
  ),
  field(
    'callback_url with a line break',
    4017,
    400,
    (c) => c.req({ callback_url: `${PUBLIC_CALLBACK}\r\nX-Injected: 1` }),
    /callback_url/,
  ),
  field(
    'callback_url of 2049 characters',
    4017,
    400,
    (c) => c.req({ callback_url: `${PUBLIC_CALLBACK}/${'a'.repeat(2049 - PUBLIC_CALLBACK.length - 1)}` }),
    /callback_url/,
  ),
  field(
    'callback_url with credentials',
    4017,
    400,
    (c) => c.req({ callback_url: 'https://user:pw@203.0.113.7/hook' }),
    /callback_url/,
  ),
  // bank rules (4013, 4014, 4015)
  field('beneficiary verification failure', 4013, 422, (c) =>
    c.req({ beneficiary_ifsc: SANDBOX.ifsc, beneficiary_acc_number: SANDBOX.verificationFailure }),
  ),
  field('bank down for maintenance', 4014, 503, (c) => c.req({ beneficiary_ifsc: 'DOWN0000001' })),
  field('bank down, another branch', 4014, 503, (c) => c.req({ beneficiary_ifsc: 'DOWN0ABC123' })),
  field('bank blocked', 4015, 422, (c) => c.req({ beneficiary_ifsc: 'BLOK0000001' })),
  // balance (4002)
  field('amount above the balance', 4002, 422, (c) => c.req({ amount: '1000.01' })),
];

/** Callback addresses that are loopback, private, link-local or unique-local in some spelling. */
const PRIVATE_CALLBACKS = [
  'http://127.0.0.1:9/hook',
  'http://localhost/hook',
  'http://api.localhost/hook',
  'http://10.1.2.3/hook',
  'http://172.16.0.1/hook',
  'http://192.168.1.1/hook',
  'http://169.254.169.254/latest/meta-data',
  'http://0.0.0.0/hook',
  'http://2130706433/hook',
  'http://0x7f.1/hook',
  'http://[::1]/hook',
  'http://[fd00::1]/hook',
  'http://[fe80::1]/hook',
  'http://[::ffff:127.0.0.1]/hook',
  'http://[::ffff:10.0.0.1]/hook',
];

/** Requests that fail two checks get the earlier check's code. */
const PRECEDENCE_CASES: Case[] = [
  field('bad sender_id and unknown wallet', 4017, 400, (c) =>
    c.req({ wallet_id: 'WL01ARZ3NDEKTSV4RRFFQ69G5FAV' }, { sender_id: 'bad id' }),
  ),
  field('unknown wallet and bad mode', 4016, 400, (c) => c.req({ wallet_id: c.otherWallet, payment_mode: 'UPI' })),
  field('bad mode and bad amount', 4012, 400, (c) => c.req({ payment_mode: 'UPI', amount: 'abc' })),
  field('bad amount and bad beneficiary', 4004, 400, (c) => ({ ...c.noBeneficiary(), amount: '1e3' })),
  field('below minimum and bad name', 4005, 400, (c) =>
    c.req({ payment_mode: 'RTGS', amount: '10.00', beneficiary_name: '1234' }),
  ),
  field('above maximum and bad IFSC', 4006, 400, (c) => c.req({ amount: '600000.00', beneficiary_ifsc: 'bad' })),
  field('bad name and bad IFSC', 4003, 400, (c) => c.req({ beneficiary_name: '1234', beneficiary_ifsc: 'bad' })),
  field('bad IFSC and bad account', 4007, 400, (c) => c.req({ beneficiary_ifsc: 'bad', beneficiary_acc_number: '1' })),
  field('bad account and long remarks', 4008, 400, (c) =>
    c.req({ beneficiary_acc_number: '1', remarks: 'r'.repeat(300) }),
  ),
  field(
    'long remarks and bad callback_url',
    4017,
    400,
    (c) => c.req({ remarks: 'r'.repeat(300), callback_url: 'ftp://x' }),
    /remarks/,
  ),
  field(
    'private callback_url and bank down',
    4017,
    400,
    (c) => c.req({ callback_url: 'http://127.0.0.1/x', beneficiary_ifsc: 'DOWN0000001' }),
    /callback_url/,
  ),
  field('bad remarks and insufficient balance', 4017, 400, (c) => c.req({ remarks: 'r'.repeat(256), amount: '5000' })),
  field('verification failure and insufficient balance', 4013, 422, (c) =>
    c.req({ beneficiary_ifsc: SANDBOX.ifsc, beneficiary_acc_number: SANDBOX.verificationFailure, amount: '5000' }),
  ),
  field('bank down and insufficient balance', 4014, 503, (c) =>
    c.req({ beneficiary_ifsc: 'DOWN0000001', amount: '5000' }),
  ),
  field('bank blocked and insufficient balance', 4015, 422, (c) =>
    c.req({ beneficiary_ifsc: 'BLOK0000001', amount: '5000' }),
  ),
];

describe.each(ENGINES)('payout initiation on %s', (engine) => {
  let t: TestServer;
  let stranger: TestMerchant;

  beforeAll(async () => {
    t = await startTestServer(engine, { env: ENV });
    stranger = await createMerchant(t.url, 'Stranger', '500.00');
  });
  afterAll(() => t.close());

  function ctxFor(f: Funded, shape: Shape): Ctx {
    return {
      merchant: f.merchant,
      otherWallet: stranger.wallet_id,
      req: (input = {}, over = {}) => payoutRequest(shape, { wallet_id: f.merchant.wallet_id, ...input }, over),
      noBeneficiary() {
        const plain = payoutRequest(shape, { wallet_id: f.merchant.wallet_id });
        delete plain.beneficiary;
        delete plain.beneficiary_name;
        delete plain.beneficiary_ifsc;
        delete plain.beneficiary_acc_number;
        return plain;
      },
    };
  }

  it.each(SCHEMES)('accepts names in Indian scripts (%s session, both shapes), kept as sent', async (scheme) => {
    const f = await fundedMerchant(t.url, scheme, '1000.00');
    for (const [shape, name] of [
      ['nested', 'राहुल शर्मा'],
      ['flat', 'முருகன் ஸ்ரீனிவாசன்'],
    ] as const) {
      const res = await f.client.post(
        '/payout/v1/initiate',
        payoutRequest(shape, { wallet_id: f.merchant.wallet_id, beneficiary_name: name }),
      );
      expect(res.body.resp_code, name).toBe(2000);
      expect((res.data?.beneficiary as Record<string, unknown>).beneficiary_name).toBe(name);
    }
    const nul = await f.client.post(
      '/payout/v1/initiate',
      payoutRequest('nested', { wallet_id: f.merchant.wallet_id, beneficiary_name: 'राहुल\u0000शर्मा' }),
    );
    expect(nul.body.resp_code).toBe(4003);
  });

  describe('success', () => {
    const combos: [Scheme, Shape, 'number' | 'text'][] = [];
    for (const scheme of SCHEMES) {
      for (const shape of ['nested', 'flat'] as const) {
        for (const kind of ['number', 'text'] as const) combos.push([scheme, shape, kind]);
      }
    }

    it.each(combos)('%s session, %s shape, amount as %s: INITIATED and debited', async (scheme, shape, kind) => {
      const f = await fundedMerchant(t.url, scheme, '1000.00');
      const plain = payoutRequest(shape, {
        wallet_id: f.merchant.wallet_id,
        amount: kind === 'number' ? 100 : '100',
        remarks: 'Invoice 42',
      });
      const res = await f.client.post('/payout/v1/initiate', plain);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'resp_code', 'resp_message']);
      expect(res.body).toMatchObject({ resp_code: 2000, resp_message: expect.any(String) });
      // `data` decrypts with the session's own scheme (the client decrypts with it).
      expect(res.data).toEqual({
        transaction_id: expect.stringMatching(TRANSACTION_ID),
        sender_id: plain.sender_id,
        wallet_id: f.merchant.wallet_id,
        amount: '100.00',
        fees: '0.00',
        tax: '0.00',
        payment_mode: 'IMPS',
        remarks: 'Invoice 42',
        status: 'INITIATED',
        status_message: expect.any(String),
        utr_number: '',
        callback_url: '',
        beneficiary: {
          beneficiary_name: PLAIN_BENEFICIARY.beneficiary_name,
          beneficiary_acc_number: PLAIN_BENEFICIARY.beneficiary_acc_number,
          beneficiary_ifsc: PLAIN_BENEFICIARY.beneficiary_ifsc,
          bank_name: expect.any(String),
        },
        timestamps: { created_at: expect.stringMatching(ISO_UTC), updated_at: expect.stringMatching(ISO_UTC) },
      });
      const data = res.data as { transaction_id: string; timestamps: { created_at: string } };
      expect(Math.abs(Date.parse(data.timestamps.created_at) - Date.now())).toBeLessThan(60_000);
      expect(await walletBalance(t.url, f.merchant.merchant_id, f.merchant.wallet_id)).toBe('900.00');
      const listed = await listPayouts(t.url, f.merchant.merchant_id);
      expect(listed.map((p) => p.transaction_id)).toEqual([data.transaction_id]);
      await expectLedgerOk(t.url);
    });

    it('writes every amount with two fraction digits', async () => {
      const f = await fundedMerchant(t.url, 'v2', '1000.00');
      const cases: [unknown, string][] = [
        ['1', '1.00'],
        ['1.5', '1.50'],
        [1.5, '1.50'],
        ['99.99', '99.99'],
        [99.99, '99.99'],
        [100.1, '100.10'],
        ['250.05', '250.05'],
      ];
      for (const [amount, written] of cases) {
        const data = await initiateOk(f.client, payoutRequest('nested', { wallet_id: f.merchant.wallet_id, amount }));
        expect(data.amount).toBe(written);
      }
      // 1000 - (1 + 1.5 + 1.5 + 99.99 + 99.99 + 100.10 + 250.05)
      expect(await walletBalance(t.url, f.merchant.merchant_id, f.merchant.wallet_id)).toBe('445.87');
      await expectLedgerOk(t.url);
    });

    it('accepts every per-mode bound itself', async () => {
      const f = await fundedMerchant(t.url, 'v1', '2000000.00');
      const req = (payment_mode: string, amount: string) =>
        payoutRequest('flat', { wallet_id: f.merchant.wallet_id, payment_mode, amount });
      expect((await initiateOk(f.client, req('IMPS', '1.00'))).amount).toBe('1.00');
      expect((await initiateOk(f.client, req('NEFT', '1'))).amount).toBe('1.00');
      expect((await initiateOk(f.client, req('IMPS', '500000.00'))).amount).toBe('500000.00');
      expect((await initiateOk(f.client, req('RTGS', '200000.00'))).amount).toBe('200000.00');
      expect((await initiateOk(f.client, req('NEFT', '1000000.00'))).amount).toBe('1000000.00');
      expect(await walletBalance(t.url, f.merchant.merchant_id, f.merchant.wallet_id)).toBe('299998.00');
    });

    it('accepts a payout of exactly the whole balance', async () => {
      const f = await fundedMerchant(t.url, 'v2', '1000.00');
      await initiateOk(f.client, payoutRequest('nested', { wallet_id: f.merchant.wallet_id, amount: '1000.00' }));
      expect(await walletBalance(t.url, f.merchant.merchant_id, f.merchant.wallet_id)).toBe('0.00');
      await expectRefused(f, payoutRequest('nested', { wallet_id: f.merchant.wallet_id, amount: '1.00' }), 4002, 422);
    });

    it('accepts fields at their limits', async () => {
      const f = await fundedMerchant(t.url, 'v2', '1000.00');
      const longCallback = `${PUBLIC_CALLBACK}/${'a'.repeat(2048 - PUBLIC_CALLBACK.length - 1)}`;
      expect(longCallback).toHaveLength(2048);
      const data = await initiateOk(
        f.client,
        payoutRequest('nested', {
          wallet_id: f.merchant.wallet_id,
          sender_id: `Az09._-${'x'.repeat(43)}`,
          beneficiary_name: `D'Souza-Rao Jr. ${'a'.repeat(84)}`,
          beneficiary_acc_number: '1'.repeat(18),
          remarks: 'r'.repeat(255),
          callback_url: longCallback,
        }),
      );
      expect(data).toMatchObject({
        sender_id: `Az09._-${'x'.repeat(43)}`,
        remarks: 'r'.repeat(255),
        callback_url: longCallback,
        beneficiary: { beneficiary_name: `D'Souza-Rao Jr. ${'a'.repeat(84)}`, beneficiary_acc_number: '1'.repeat(18) },
      });
      const short = await initiateOk(
        f.client,
        payoutRequest(
          'flat',
          { wallet_id: f.merchant.wallet_id, beneficiary_name: 'José Müller', beneficiary_acc_number: '123456789' },
          { remarks: undefined },
        ),
      );
      expect(short).toMatchObject({
        remarks: '',
        callback_url: '',
        beneficiary: { beneficiary_name: 'José Müller', beneficiary_acc_number: '123456789' },
      });
    });

    it('accepts a callback_url that resolves to a public address', async () => {
      const f = await fundedMerchant(t.url, 'v1', '1000.00');
      const data = await initiateOk(
        f.client,
        payoutRequest('flat', { wallet_id: f.merchant.wallet_id, callback_url: PUBLIC_CALLBACK }),
      );
      expect(data.callback_url).toBe(PUBLIC_CALLBACK);
    });

    it('pays from a second wallet of the same merchant', async () => {
      const f = await fundedMerchant(t.url, 'v2', '10.00');
      const created = await admin(t.url, 'POST', `/admin/v1/merchants/${f.merchant.merchant_id}/wallets`);
      expect(created.status).toBe(201);
      const second = created.body.wallet_id as string;
      await admin(t.url, 'POST', `/admin/v1/wallets/${second}/credits`, { amount: '500.00' });
      const data = await initiateOk(f.client, payoutRequest('nested', { wallet_id: second, amount: '400.00' }));
      expect(data.wallet_id).toBe(second);
      expect(await walletBalance(t.url, f.merchant.merchant_id, second)).toBe('100.00');
      expect(await walletBalance(t.url, f.merchant.merchant_id, f.merchant.wallet_id)).toBe('10.00');
    });

    it('lets two merchants use the same sender_id', async () => {
      const a = await fundedMerchant(t.url, 'v1', '1000.00');
      const b = await fundedMerchant(t.url, 'v2', '1000.00');
      const id = senderId('shared');
      const pa = await initiateOk(a.client, payoutRequest('flat', { wallet_id: a.merchant.wallet_id, sender_id: id }));
      const pb = await initiateOk(
        b.client,
        payoutRequest('nested', { wallet_id: b.merchant.wallet_id, sender_id: id }),
      );
      expect(pa.transaction_id).not.toBe(pb.transaction_id);
    });

    it('lets a refused sender_id be used again, since nothing was recorded', async () => {
      const f = await fundedMerchant(t.url, 'v2', '1000.00');
      const id = senderId('retry');
      await expectRefused(
        f,
        payoutRequest('nested', { wallet_id: f.merchant.wallet_id, sender_id: id, amount: '5000.00' }),
        4002,
        422,
      );
      await expectRefused(
        f,
        payoutRequest('nested', { wallet_id: f.merchant.wallet_id, sender_id: id, beneficiary_ifsc: 'DOWN0000001' }),
        4014,
        503,
      );
      const data = await initiateOk(
        f.client,
        payoutRequest('nested', { wallet_id: f.merchant.wallet_id, sender_id: id, amount: '500.00' }),
      );
      expect(data.sender_id).toBe(id);
    });
  });

  describe.each(SCHEMES)('each check with a %s session', (scheme) => {
    let f: Funded;
    let c: Ctx;
    /** This merchant never gets a payout: 1000.00 and no payouts, before and after every case. */
    let untouched: Snapshot;
    beforeAll(async () => {
      f = await fundedMerchant(t.url, scheme, '1000.00');
      c = ctxFor(f, shapeOf(scheme));
      untouched = await snapshot(t.url, f.merchant);
      expect(untouched).toEqual({ balance: '1000.00', payouts: [] });
    });

    it.each(CHECK_CASES)('$name → $code', async (tc) => {
      const { message } = await expectRefused(f, tc.build(c), tc.code, tc.http, untouched);
      if (tc.message) expect(message).toMatch(tc.message);
    });

    it.each(PRECEDENCE_CASES)('precedence: $name → $code', async (tc) => {
      const { message } = await expectRefused(f, tc.build(c), tc.code, tc.http, untouched);
      if (tc.message) expect(message).toMatch(tc.message);
    });

    it.each(PRIVATE_CALLBACKS)('callback_url %s is private: 4017', async (url) => {
      const { message } = await expectRefused(f, c.req({ callback_url: url }), 4017, 400, untouched);
      expect(message).toMatch(/callback_url/);
    });

    it('the other shape is checked the same way', async () => {
      const other = ctxFor(f, shapeOf(scheme) === 'flat' ? 'nested' : 'flat');
      await expectRefused(f, other.req({ beneficiary_ifsc: 'HDFC1001234' }), 4007, 400);
      await expectRefused(f, other.req({ beneficiary_acc_number: '12345678' }), 4008, 400);
      await expectRefused(f, other.req({ beneficiary_name: 'R2D2' }), 4003, 400);
      await expectRefused(f, other.noBeneficiary(), 4003, 400);
    });
  });

  describe('duplicate sender_id (4009)', () => {
    it('answers 409 with the existing payout, in the scheme of the asking session', async () => {
      const f = await fundedMerchant(t.url, 'v2', '1000.00');
      const id = senderId('dup');
      const first = await initiateOk(
        f.client,
        payoutRequest('nested', { wallet_id: f.merchant.wallet_id, sender_id: id, amount: '100.00' }),
      );
      for (const client of [f.client, await MerchantClient.connect(t.url, f.merchant, 'v1')]) {
        const { data } = await expectRefused(
          { merchant: f.merchant, client },
          payoutRequest(shapeOf(client.scheme), { wallet_id: f.merchant.wallet_id, sender_id: id, amount: '7.00' }),
          4009,
          409,
        );
        expect(data).toMatchObject({
          transaction_id: first.transaction_id,
          sender_id: id,
          amount: '100.00',
          wallet_id: f.merchant.wallet_id,
          timestamps: { created_at: (first.timestamps as { created_at: string }).created_at },
        });
      }
      expect(await walletBalance(t.url, f.merchant.merchant_id, f.merchant.wallet_id)).toBe('900.00');
    });

    it('comes after the field checks and before the bank rules, the balance and the allowances', async () => {
      const f = await fundedMerchant(t.url, 'v1', '1000.00');
      const c = ctxFor(f, 'flat');
      const id = senderId('dup');
      await initiateOk(f.client, c.req({ sender_id: id }));
      await expectRefused(f, c.req({ sender_id: id, amount: 'abc' }), 4004, 400);
      await expectRefused(f, c.req({ sender_id: id, beneficiary_ifsc: 'bad' }), 4007, 400);
      await expectRefused(f, c.req({ sender_id: id, remarks: 'r'.repeat(256) }), 4017, 400);
      await expectRefused(f, c.req({ sender_id: id, beneficiary_ifsc: 'DOWN0000001' }), 4009, 409);
      await expectRefused(f, c.req({ sender_id: id, beneficiary_ifsc: 'BLOK0000001' }), 4009, 409);
      await expectRefused(
        f,
        c.req({ sender_id: id, beneficiary_ifsc: SANDBOX.ifsc, beneficiary_acc_number: SANDBOX.verificationFailure }),
        4009,
        409,
      );
      await expectRefused(f, c.req({ sender_id: id, amount: '5000.00' }), 4009, 409);
      await setLimits(t.url, f.merchant.merchant_id, { daily_limit: '1.00' });
      await expectRefused(f, c.req({ sender_id: id, amount: '50.00' }), 4009, 409);
    });
  });

  describe('daily and monthly allowances', () => {
    it('refuses past the daily limit with 4010 and allows exactly the limit', async () => {
      const f = await fundedMerchant(t.url, 'v2', '10000.00');
      await setLimits(t.url, f.merchant.merchant_id, { daily_limit: '150.00' });
      const c = ctxFor(f, 'nested');
      await initiateOk(f.client, c.req({ amount: '100.00' }));
      await expectRefused(f, c.req({ amount: '60.00' }), 4010, 422);
      await initiateOk(f.client, c.req({ amount: '50.00' }));
      await expectRefused(f, c.req({ amount: '1.00' }), 4010, 422);
      // A limit of null removes it.
      await setLimits(t.url, f.merchant.merchant_id, { daily_limit: null });
      await initiateOk(f.client, c.req({ amount: '500.00' }));
      expect(await walletBalance(t.url, f.merchant.merchant_id, f.merchant.wallet_id)).toBe('9350.00');
    });

    it('refuses past the monthly limit with 4011 and allows exactly the limit', async () => {
      const f = await fundedMerchant(t.url, 'v1', '10000.00');
      await setLimits(t.url, f.merchant.merchant_id, { monthly_limit: '200.00' });
      const c = ctxFor(f, 'flat');
      await initiateOk(f.client, c.req({ amount: '150.00' }));
      await expectRefused(f, c.req({ amount: '60.00' }), 4011, 422);
      await initiateOk(f.client, c.req({ amount: 50 }));
      await expectRefused(f, c.req({ amount: 1 }), 4011, 422);
    });

    it('counts payouts made before the limit was set', async () => {
      const f = await fundedMerchant(t.url, 'v2', '10000.00');
      const c = ctxFor(f, 'nested');
      await initiateOk(f.client, c.req({ amount: '120.00' }));
      await setLimits(t.url, f.merchant.merchant_id, { daily_limit: '150.00' });
      await expectRefused(f, c.req({ amount: '30.01' }), 4010, 422);
      await initiateOk(f.client, c.req({ amount: '30.00' }));
    });

    it('checks the daily limit before the monthly one, and the balance before both', async () => {
      const f = await fundedMerchant(t.url, 'v2', '1000.00');
      await setLimits(t.url, f.merchant.merchant_id, { daily_limit: '100.00', monthly_limit: '100.00' });
      const c = ctxFor(f, 'nested');
      await initiateOk(f.client, c.req({ amount: '100.00' }));
      await expectRefused(f, c.req({ amount: '1.00' }), 4010, 422);
      await expectRefused(f, c.req({ amount: '5000.00' }), 4002, 422);
      await setLimits(t.url, f.merchant.merchant_id, { daily_limit: '1000.00' });
      await expectRefused(f, c.req({ amount: '1.00' }), 4011, 422);
    });

    it('frees the allowance of a payout that failed and was refunded', async () => {
      const f = await fundedMerchant(t.url, 'v2', '1000.00');
      await setLimits(t.url, f.merchant.merchant_id, { daily_limit: '100.00', monthly_limit: '100.00' });
      const c = ctxFor(f, 'nested');
      const failed = await initiateOk(
        f.client,
        c.req({ amount: '100.00', beneficiary_ifsc: SANDBOX.ifsc, beneficiary_acc_number: SANDBOX.failure }),
      );
      // No refusal is asserted before the refund: the sandbox may fail and refund the payout before a second request
      // arrives (seen on a loaded machine). That an open payout still counts is the next test's.
      await waitForStatus(t.url, failed.transaction_id as string, 'REFUNDED');
      expect(await walletBalance(t.url, f.merchant.merchant_id, f.merchant.wallet_id)).toBe('1000.00');
      await initiateOk(f.client, c.req({ amount: '100.00' }));
      await expectRefused(f, c.req({ amount: '1.00' }), 4010, 422);
    });

    it('keeps counting payouts that are pending or succeeded', async () => {
      const f = await fundedMerchant(t.url, 'v1', '1000.00');
      await setLimits(t.url, f.merchant.merchant_id, { daily_limit: '200.00' });
      const c = ctxFor(f, 'flat');
      const ok = await initiateOk(f.client, c.req({ amount: '100.00' }));
      const pending = await initiateOk(
        f.client,
        c.req({ amount: '100.00', beneficiary_ifsc: SANDBOX.ifsc, beneficiary_acc_number: SANDBOX.pending }),
      );
      await waitForStatus(t.url, ok.transaction_id as string, 'SUCCESS');
      await waitForStatus(t.url, pending.transaction_id as string, 'PENDING');
      await expectRefused(f, c.req({ amount: '1.00' }), 4010, 422);
    });
  });

  describe('undecryptable payloads (4014, HTTP 400)', () => {
    const bodies: [string, (f: Funded, other: TestMerchant) => unknown][] = [
      ['payload not base64', () => ({ payload: '!!!not-base64!!!' })],
      ['payload base64 with a stray character', (f) => ({ payload: `${f.client.encrypt({ a: 1 })}*` })],
      ['payload empty', () => ({ payload: '' })],
      ['payload missing', () => ({})],
      ['payload a number', () => ({ payload: 42 })],
      ['payload an object', (f) => ({ payload: { sender_id: 'x', wallet_id: f.merchant.wallet_id } })],
      ['payload null', () => ({ payload: null })],
      [
        "payload encrypted with another merchant's keys",
        (f, other) => ({
          payload: encryptJson(payoutRequest('nested', { wallet_id: f.merchant.wallet_id }), f.client.scheme, {
            apiKey: other.api_key,
            secretKey: other.secret_key,
          }),
        }),
      ],
      [
        'payload encrypted with the other scheme',
        (f) => ({
          payload: encryptJson(
            payoutRequest('nested', { wallet_id: f.merchant.wallet_id }),
            f.client.scheme === 'v1' ? 'v2' : 'v1',
            { apiKey: f.merchant.api_key, secretKey: f.merchant.secret_key },
          ),
        }),
      ],
      [
        'payload truncated',
        (f) => {
          const raw = Buffer.from(
            f.client.encrypt(payoutRequest('nested', { wallet_id: f.merchant.wallet_id })),
            'base64',
          );
          return { payload: raw.subarray(0, raw.length - 5).toString('base64') };
        },
      ],
      [
        'payload cut to a whole block',
        (f) => {
          const raw = Buffer.from(
            f.client.encrypt(payoutRequest('nested', { wallet_id: f.merchant.wallet_id })),
            'base64',
          );
          return { payload: raw.subarray(0, raw.length - 16).toString('base64') };
        },
      ],
      [
        'payload with a flipped byte',
        (f) => {
          const raw = Buffer.from(
            f.client.encrypt(payoutRequest('nested', { wallet_id: f.merchant.wallet_id })),
            'base64',
          );
          raw[raw.length - 1] = (raw[raw.length - 1] as number) ^ 0xff;
          return { payload: raw.toString('base64') };
        },
      ],
      ['plaintext not JSON', (f) => ({ payload: encryptRaw(f, 'sender_id=abc&amount=10') })],
      ['plaintext a JSON array', (f) => ({ payload: f.client.encrypt([payoutRequest('nested', { wallet_id: 'x' })]) })],
      ['plaintext JSON null', (f) => ({ payload: f.client.encrypt(null) })],
      ['plaintext a JSON string', (f) => ({ payload: f.client.encrypt('{"sender_id":"a"}') })],
      ['plaintext a JSON number', (f) => ({ payload: f.client.encrypt(12) })],
    ];

    function encryptRaw(f: Funded, text: string): string {
      const keys = { apiKey: f.merchant.api_key, secretKey: f.merchant.secret_key };
      return f.client.scheme === 'v1' ? encryptV1(text, keys) : encryptV2(text, keys);
    }

    describe.each(SCHEMES)('with a %s session', (scheme) => {
      let f: Funded;
      beforeAll(async () => {
        f = await fundedMerchant(t.url, scheme, '1000.00');
      });

      it.each(bodies)('%s', async (_name, build) => {
        const before = await snapshot(t.url, f.merchant);
        const res = await http(t.url, 'POST', '/payout/v1/initiate', {
          body: build(f, stranger),
          headers: f.client.auth(),
        });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ resp_code: 4014, resp_message: expect.any(String) });
        expect(await snapshot(t.url, f.merchant)).toEqual(before);
      });
    });
  });

  describe('token (4001, HTTP 401)', () => {
    let f: Funded;
    beforeAll(async () => {
      f = await fundedMerchant(t.url, 'v2', '1000.00');
    });

    const sign = (claims: Record<string, unknown>, exp: number, secret = JWT_SECRET) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuer('payrail')
        .setIssuedAt(exp - 300)
        .setExpirationTime(exp)
        .setJti('0b8f6f0e-0000-4000-8000-000000000000')
        .sign(new TextEncoder().encode(secret));

    const now = () => Math.floor(Date.now() / 1000);

    const headerCases: [string, () => Promise<Record<string, string>>][] = [
      ['Authorization missing', async () => ({})],
      ['garbage token', async () => ({ authorization: 'Bearer not-a-token' })],
      ['empty bearer', async () => ({ authorization: 'Bearer ' })],
      ['Basic scheme', async () => ({ authorization: `Basic ${Buffer.from('a:b').toString('base64')}` })],
      ['token without Bearer', async () => ({ authorization: f.client.token })],
      [
        'expired token',
        async () => ({
          authorization: `Bearer ${await sign({ sub: f.merchant.merchant_id, scheme: 'v2', cv: 1 }, now() - 60)}`,
        }),
      ],
      [
        'token signed with another key',
        async () => ({
          authorization: `Bearer ${await sign({ sub: f.merchant.merchant_id, scheme: 'v2', cv: 1 }, now() + 300, 'x'.repeat(40))}`,
        }),
      ],
      [
        'token with a tampered subject',
        async () => {
          const [h, , s] = f.client.token.split('.');
          const body = Buffer.from(
            JSON.stringify({ sub: stranger.merchant_id, scheme: 'v2', cv: 1, iss: 'payrail', exp: now() + 300 }),
          ).toString('base64url');
          return { authorization: `Bearer ${h}.${body}.${s}` };
        },
      ],
    ];

    it('accepts a token signed with the configured key (the control of the cases below)', async () => {
      const token = await sign({ sub: f.merchant.merchant_id, scheme: 'v2', cv: 1 }, now() + 300);
      const res = await http(t.url, 'POST', '/payout/v1/initiate', {
        body: { payload: f.client.encrypt(payoutRequest('nested', { wallet_id: f.merchant.wallet_id })) },
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.body.resp_code).toBe(2000);
    });

    it.each(headerCases)('%s', async (_name, headers) => {
      const before = await snapshot(t.url, f.merchant);
      const res = await http(t.url, 'POST', '/payout/v1/initiate', {
        body: { payload: f.client.encrypt(payoutRequest('nested', { wallet_id: f.merchant.wallet_id })) },
        headers: await headers(),
      });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ resp_code: 4001, resp_message: expect.any(String) });
      expect(await snapshot(t.url, f.merchant)).toEqual(before);
    });

    it('checks the token before the body', async () => {
      const res = await http(t.url, 'POST', '/payout/v1/initiate', { rawBody: 'not json', headers: {} });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ resp_code: 4001, resp_message: expect.any(String) });
      const garbage = await http(t.url, 'POST', '/payout/v1/initiate', { body: { payload: '!!!' } });
      expect(garbage.body.resp_code).toBe(4001);
    });

    it("refuses a suspended merchant's open session", async () => {
      const g = await fundedMerchant(t.url, 'v1', '1000.00');
      const res = await admin(t.url, 'PATCH', `/admin/v1/merchants/${g.merchant.merchant_id}`, { status: 'suspended' });
      expect(res.status).toBe(200);
      const refused = await g.client.post(
        '/payout/v1/initiate',
        payoutRequest('flat', { wallet_id: g.merchant.wallet_id }),
      );
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual({ resp_code: 4001, resp_message: expect.any(String) });
      expect(await walletBalance(t.url, g.merchant.merchant_id, g.merchant.wallet_id)).toBe('1000.00');
    });
  });
});
