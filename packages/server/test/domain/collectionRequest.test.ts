import { describe, expect, it } from 'vitest';
import {
  COLLECTION_MAX_PAISE,
  COLLECTION_MIN_PAISE,
  parseCollectionFields,
  VPA_PATTERN,
} from '../../src/domain/collectionRequest.ts';
import { RequestRejected } from '../../src/domain/RequestRejected.ts';

const WALLET = 'WL01JD3K8Q5W2V7X9Y0Z1A2B3C4D';
const valid = { senderId: 'order-1', amount: '250.50' };

/** The code and message a plaintext is refused with, or null when it is accepted. */
function refusal(plain: Record<string, unknown>): { code: number; http: number; message: string } | null {
  try {
    parseCollectionFields(plain);
    return null;
  } catch (err) {
    if (!(err instanceof RequestRejected)) throw err;
    return { code: err.def.code, http: err.def.http, message: err.def.message };
  }
}

describe('parseCollectionFields', () => {
  it('accepts the minimal request and fills the defaults', () => {
    expect(parseCollectionFields(valid)).toEqual({
      senderId: 'order-1',
      amount: 25050n,
      remarks: '',
      walletId: null,
      callbackUrl: null,
      payerVpa: null,
      vpa: null,
      txnType: 'INTENT',
      channel: '',
    });
  });

  it('accepts every optional field', () => {
    expect(
      parseCollectionFields({
        ...valid,
        remarks: 'Order #42 & more',
        walletId: WALLET,
        callbackUrl: 'https://merchant.example/hooks?x=1',
        payerVpa: 'asha.rao@okicici',
        vpa: 'shop.counter@okaxis',
        txnType: 'COLLECT',
        channel: 'android-app',
      }),
    ).toEqual({
      senderId: 'order-1',
      amount: 25050n,
      remarks: 'Order #42 & more',
      walletId: WALLET,
      callbackUrl: 'https://merchant.example/hooks?x=1',
      payerVpa: 'asha.rao@okicici',
      vpa: 'shop.counter@okaxis',
      txnType: 'COLLECT',
      channel: 'android-app',
    });
  });

  it.each([null, ''])('treats optional fields given as %j as absent', (empty) => {
    expect(
      parseCollectionFields({
        ...valid,
        remarks: empty,
        walletId: empty,
        callbackUrl: empty,
        payerVpa: empty,
        vpa: empty,
        txnType: empty,
        channel: empty,
      }),
    ).toMatchObject({
      remarks: '',
      walletId: null,
      callbackUrl: null,
      payerVpa: null,
      vpa: null,
      txnType: 'INTENT',
      channel: '',
    });
  });

  describe('amount (4110)', () => {
    it.each([
      ['1.00', 100n],
      ['1', 100n],
      ['100000.00', 10_000_000n],
      ['99999.99', 9_999_999n],
      ['250.5', 25050n],
      ['0001.10', 110n],
      [250.5, 25050n],
      [1, 100n],
      [100000, 10_000_000n],
    ])('accepts %j as %s paise', (amount, paise) => {
      expect(parseCollectionFields({ ...valid, amount }).amount).toBe(paise);
    });

    it('has the decided bounds', () => {
      expect(COLLECTION_MIN_PAISE).toBe(100n);
      expect(COLLECTION_MAX_PAISE).toBe(10_000_000n);
    });

    it.each([
      ['below the minimum', '0.99'],
      ['zero', '0'],
      ['zero with decimals', '0.00'],
      ['above the maximum', '100000.01'],
      ['far above', '1000000'],
      ['three decimals', '1.005'],
      ['negative', '-5.00'],
      ['plus sign', '+5.00'],
      ['exponent', '1e3'],
      ['leading space', ' 5.00'],
      ['trailing space', '5.00 '],
      ['comma', '1,000.00'],
      ['empty', ''],
      ['dot only', '.'],
      ['trailing dot', '5.'],
      ['leading dot', '.50'],
      ['hex', '0x10'],
      ['NaN text', 'NaN'],
      ['missing', undefined],
      ['null', null],
      ['boolean', true],
      ['object', { value: '5.00' }],
      ['array', ['5.00']],
      ['number below the minimum', 0.5],
      ['number with three decimals', 1.005],
      ['negative number', -1],
      ['number above the maximum', 100000.01],
      ['huge number', 1e21],
    ])('refuses %s (%j)', (_name, amount) => {
      expect(refusal({ ...valid, amount })).toMatchObject({ code: 4110, http: 400 });
    });
  });

  describe('other fields (4111, the message names the field)', () => {
    it.each([
      ['senderId', { senderId: undefined }],
      ['senderId', { senderId: '' }],
      ['senderId', { senderId: 'x'.repeat(51) }],
      ['senderId', { senderId: 'has space' }],
      ['senderId', { senderId: 'a/b' }],
      ['senderId', { senderId: 'Zürich' }],
      ['senderId', { senderId: 42 }],
      ['remarks', { remarks: 'x'.repeat(256) }],
      ['remarks', { remarks: 7 }],
      ['walletId', { walletId: 'wallet-1' }],
      ['walletId', { walletId: 'MR01JD3K8Q5W2V7X9Y0Z1A2B3C4D' }],
      ['walletId', { walletId: 12 }],
      ['callbackUrl', { callbackUrl: 'not a url' }],
      ['callbackUrl', { callbackUrl: 'ftp://merchant.example/hook' }],
      ['callbackUrl', { callbackUrl: 'https://user:pw@merchant.example/hook' }],
      ['callbackUrl', { callbackUrl: `https://merchant.example/${'x'.repeat(2048)}` }],
      ['callbackUrl', { callbackUrl: true }],
      ['payerVpa', { payerVpa: 'no-at-sign' }],
      ['payerVpa', { payerVpa: 'a@b' }],
      ['payerVpa', { payerVpa: 'two@at@signs' }],
      ['payerVpa', { payerVpa: 'space in@bank' }],
      ['payerVpa', { payerVpa: 'name@1bank' }],
      ['payerVpa', { payerVpa: 5 }],
      ['vpa', { vpa: 'no-at-sign' }],
      ['vpa', { vpa: 'space in@bank' }],
      ['vpa', { vpa: ['shop@okbank'] }],
      ['txnType', { txnType: 'UPI' }],
      ['txnType', { txnType: 1 }],
      ['payerVpa', { txnType: 'COLLECT' }],
      ['payerVpa', { txnType: 'collect', payerVpa: '' }],
      ['channel', { channel: 'c'.repeat(21) }],
      ['channel', { channel: 7 }],
      ['channel', { channel: 'web\napp' }],
    ])('refuses a bad %s (%j)', (field, over) => {
      const r = refusal({ ...valid, ...over });
      expect(r).toMatchObject({ code: 4111, http: 400 });
      expect(r?.message).toContain(field);
    });

    it('accepts a senderId of exactly 50 characters of the allowed alphabet and remarks of 255', () => {
      const senderId = 'aZ09._-'.repeat(8).slice(0, 50);
      expect(parseCollectionFields({ ...valid, senderId, remarks: 'r'.repeat(255) })).toMatchObject({
        senderId,
        remarks: 'r'.repeat(255),
      });
    });

    it('checks senderId before amount', () => {
      expect(refusal({ senderId: '', amount: '0' })).toMatchObject({ code: 4111 });
    });
  });

  describe('requestAmount and its alias amount', () => {
    const { amount: _amount, ...noAmount } = valid;
    it.each([
      ['requestAmount alone', { requestAmount: '250.50' }, 25050n],
      ['amount alone', { amount: '250.50' }, 25050n],
      ['both, equal', { requestAmount: '250.50', amount: '250.50' }, 25050n],
      ['both, equal in value', { requestAmount: '250.5', amount: 250.5 }, 25050n],
      ['requestAmount as a JSON number', { requestAmount: 99 }, 9900n],
      ['requestAmount with amount null', { requestAmount: '1.00', amount: null }, 100n],
    ])('accepts %s', (_name, over, paise) => {
      expect(parseCollectionFields({ ...noAmount, ...over }).amount).toBe(paise);
    });

    it.each([
      ['both, different', { requestAmount: '250.50', amount: '250.51' }],
      ['requestAmount invalid, amount valid', { requestAmount: '0.50', amount: '10.00' }],
      ['requestAmount valid, amount invalid', { requestAmount: '10.00', amount: 'ten' }],
      ['requestAmount empty', { requestAmount: '' }],
      ['requestAmount above the maximum', { requestAmount: '100000.01' }],
      ['neither', {}],
    ])('refuses %s with 4110', (_name, over) => {
      expect(refusal({ ...noAmount, ...over })).toMatchObject({ code: 4110, http: 400 });
    });

    it('says when the two differ', () => {
      expect(refusal({ ...noAmount, requestAmount: '1.00', amount: '2.00' })?.message).toContain('differ');
    });
  });

  describe('txnType and channel', () => {
    it.each([
      [{}, 'INTENT'],
      [{ payerVpa: 'asha@okicici' }, 'COLLECT'],
      [{ txnType: 'INTENT', payerVpa: 'asha@okicici' }, 'INTENT'],
      [{ txnType: 'intent' }, 'INTENT'],
      [{ txnType: 'Collect', payerVpa: 'asha@okicici' }, 'COLLECT'],
    ])('%j → %s', (over, txnType) => {
      expect(parseCollectionFields({ ...valid, ...over }).txnType).toBe(txnType);
    });

    it('accepts a channel of 20 characters, counted as characters not bytes', () => {
      expect(parseCollectionFields({ ...valid, channel: 'c'.repeat(20) }).channel).toBe('c'.repeat(20));
      const hindi = 'चैनल'.repeat(5);
      expect([...hindi]).toHaveLength(20);
      expect(parseCollectionFields({ ...valid, channel: hindi }).channel).toBe(hindi);
    });
  });

  it.each(['asha@okicici', 'a.b_c-d@ybl', 'shop@okbank', '9876543210@paytm'])('VPA_PATTERN accepts %s', (vpa) => {
    expect(VPA_PATTERN.test(vpa)).toBe(true);
  });
});
