import { describe, expect, it } from 'vitest';
import {
  checkSenderId,
  checkWalletIdShape,
  IFSC_PATTERN,
  MODE_LIMITS,
  parsePayoutFields,
} from '../../src/domain/payoutRequest.ts';
import { RequestRejected } from '../../src/domain/RequestRejected.ts';

const WALLET = 'WL01ARZ3NDEKTSV4RRFFQ69G5FAV';
const BENEFICIARY = {
  beneficiary_name: 'Asha Rao',
  beneficiary_ifsc: 'HDFC0001234',
  beneficiary_acc_number: '123456789012',
};

function nested(over: Record<string, unknown> = {}): Record<string, unknown> {
  return { payment_mode: 'IMPS', amount: '100.00', beneficiary: { ...BENEFICIARY }, remarks: 'x', ...over };
}

function flat(over: Record<string, unknown> = {}): Record<string, unknown> {
  return { payment_mode: 'IMPS', amount: 100, ...BENEFICIARY, remarks: 'x', ...over };
}

/** The code (and message) a check refuses with, or null when it passes. */
function refusal(fn: () => unknown): { code: number; message: string } | null {
  try {
    fn();
    return null;
  } catch (err) {
    if (!(err instanceof RequestRejected)) throw err;
    return { code: err.def.code, message: err.def.message };
  }
}

const codeOf = (fn: () => unknown) => refusal(fn)?.code ?? null;

describe('checkSenderId (4017)', () => {
  it.each(['a', 'A-Z.a_z-09', 'x'.repeat(50)])('accepts %s', (id) => {
    expect(checkSenderId({ sender_id: id })).toBe(id);
  });

  it.each([undefined, null, '', 'x'.repeat(51), 'a b', 'a/b', 'ä', 'a\n', 42, ['a']])('refuses %j', (id) => {
    const r = refusal(() => checkSenderId({ sender_id: id }));
    expect(r?.code).toBe(4017);
    expect(r?.message).toMatch(/sender_id/);
  });
});

describe('checkWalletIdShape (4016)', () => {
  it('accepts a wallet identifier', () => {
    expect(checkWalletIdShape({ wallet_id: WALLET })).toBe(WALLET);
  });

  it.each([undefined, '', 'wallet', 'MR01ARZ3NDEKTSV4RRFFQ69G5FAV', `${WALLET}X`, WALLET.toLowerCase(), 7])(
    'refuses %j',
    (id) => {
      expect(codeOf(() => checkWalletIdShape({ wallet_id: id }))).toBe(4016);
    },
  );
});

describe('parsePayoutFields', () => {
  it('reads the nested shape with text amount', () => {
    expect(parsePayoutFields(nested({ callback_url: 'https://example.com/h' }))).toEqual({
      paymentMode: 'IMPS',
      amount: 10000n,
      beneficiaryName: 'Asha Rao',
      accountNumber: '123456789012',
      ifsc: 'HDFC0001234',
      remarks: 'x',
      callbackUrl: 'https://example.com/h',
    });
  });

  it('reads the flat shape with a number amount', () => {
    expect(parsePayoutFields(flat({ amount: 100.5 }))).toMatchObject({ amount: 10050n, beneficiaryName: 'Asha Rao' });
  });

  it('defaults remarks to "" and callback_url to none', () => {
    const fields = parsePayoutFields(flat({ remarks: undefined }));
    expect(fields.remarks).toBe('');
    expect(fields.callbackUrl).toBeNull();
    expect(parsePayoutFields(flat({ callback_url: '' })).callbackUrl).toBeNull();
  });

  it('prefers the nested beneficiary when both shapes are present', () => {
    const fields = parsePayoutFields({ ...flat(), beneficiary: { ...BENEFICIARY, beneficiary_name: 'Ravi Kumar' } });
    expect(fields.beneficiaryName).toBe('Ravi Kumar');
  });

  it.each([
    ['payment_mode missing', { payment_mode: undefined }, 4012],
    ['payment_mode UPI', { payment_mode: 'UPI' }, 4012],
    ['payment_mode neft', { payment_mode: 'neft' }, 4012],
    ['amount "1e3"', { amount: '1e3' }, 4004],
    ['amount "-5"', { amount: '-5' }, 4004],
    ['amount "10.123"', { amount: '10.123' }, 4004],
    ['amount "abc"', { amount: 'abc' }, 4004],
    ['amount " 10"', { amount: ' 10' }, 4004],
    ['amount 0', { amount: 0 }, 4004],
    ['amount NaN', { amount: Number.NaN }, 4004],
    ['amount Infinity', { amount: Number.POSITIVE_INFINITY }, 4004],
    ['amount 1e21', { amount: 1e21 }, 4004],
    ['amount missing', { amount: undefined }, 4004],
    ['IMPS 0.99', { amount: '0.99' }, 4005],
    ['RTGS 199999.99', { payment_mode: 'RTGS', amount: '199999.99' }, 4005],
    ['IMPS 500000.01', { amount: '500000.01' }, 4006],
    ['NEFT 1000000.01', { payment_mode: 'NEFT', amount: '1000000.01' }, 4006],
    ['RTGS 100000000.01', { payment_mode: 'RTGS', amount: '100000000.01' }, 4006],
    ['beneficiary null', { beneficiary: null }, 4003],
    ['beneficiary an array', { beneficiary: [BENEFICIARY] }, 4003],
    ['beneficiary a string', { beneficiary: 'Asha Rao' }, 4003],
    ['beneficiary empty', { beneficiary: {} }, 4003],
    ['name with digits', { beneficiary: { ...BENEFICIARY, beneficiary_name: 'R2D2' } }, 4003],
    ['name of 101', { beneficiary: { ...BENEFICIARY, beneficiary_name: 'a'.repeat(101) } }, 4003],
    ['name blank', { beneficiary: { ...BENEFICIARY, beneficiary_name: '  ' } }, 4003],
    ['IFSC lower case', { beneficiary: { ...BENEFICIARY, beneficiary_ifsc: 'hdfc0001234' } }, 4007],
    ['IFSC fifth not 0', { beneficiary: { ...BENEFICIARY, beneficiary_ifsc: 'HDFC1001234' } }, 4007],
    ['account 8 digits', { beneficiary: { ...BENEFICIARY, beneficiary_acc_number: '12345678' } }, 4008],
    ['account 19 digits', { beneficiary: { ...BENEFICIARY, beneficiary_acc_number: '1'.repeat(19) } }, 4008],
    ['account letters', { beneficiary: { ...BENEFICIARY, beneficiary_acc_number: '1234567890AB' } }, 4008],
    ['account a number', { beneficiary: { ...BENEFICIARY, beneficiary_acc_number: 123456789012 } }, 4008],
    ['remarks of 256', { remarks: 'r'.repeat(256) }, 4017],
    ['remarks an object', { remarks: {} }, 4017],
    ['remarks with NUL', { remarks: 'a\u0000b' }, 4017],
    ['callback_url a number', { callback_url: 1 }, 4017],
    ['callback_url of 2049', { callback_url: `https://a.example/${'a'.repeat(2049 - 18)}` }, 4017],
  ])('%s → %i', (_name, over, code) => {
    expect(codeOf(() => parsePayoutFields(nested(over)))).toBe(code);
  });

  it('names the field in the 4017 messages', () => {
    expect(refusal(() => parsePayoutFields(nested({ remarks: 'r'.repeat(256) })))?.message).toMatch(/remarks/);
    expect(refusal(() => parsePayoutFields(nested({ callback_url: 5 })))?.message).toMatch(/callback_url/);
  });

  it('refuses a flat request without beneficiary fields with 4003', () => {
    const plain = flat();
    delete plain.beneficiary_name;
    delete plain.beneficiary_ifsc;
    delete plain.beneficiary_acc_number;
    expect(codeOf(() => parsePayoutFields(plain))).toBe(4003);
  });

  it('checks in the contract order: mode, amount, bounds, name, IFSC, account, remarks, callback_url', () => {
    const all = {
      payment_mode: 'UPI',
      amount: 'abc',
      beneficiary: { beneficiary_name: '1', beneficiary_ifsc: 'x', beneficiary_acc_number: '1' },
      remarks: 'r'.repeat(300),
      callback_url: 7,
    };
    const order: [Record<string, unknown>, number][] = [
      [all, 4012],
      [{ ...all, payment_mode: 'RTGS' }, 4004],
      [{ ...all, payment_mode: 'RTGS', amount: '10' }, 4005],
      [{ ...all, payment_mode: 'IMPS', amount: '600000' }, 4006],
      [{ ...all, payment_mode: 'IMPS', amount: '10' }, 4003],
      [
        { ...all, amount: '10', payment_mode: 'IMPS', beneficiary: { ...all.beneficiary, beneficiary_name: 'A' } },
        4007,
      ],
      [
        {
          ...all,
          amount: '10',
          payment_mode: 'IMPS',
          beneficiary: { ...all.beneficiary, beneficiary_name: 'A', beneficiary_ifsc: 'HDFC0001234' },
        },
        4008,
      ],
    ];
    for (const [plain, code] of order) expect(codeOf(() => parsePayoutFields(plain))).toBe(code);
    const fieldsOk = { ...nested(), remarks: 'r'.repeat(300), callback_url: 7 };
    expect(refusal(() => parsePayoutFields(fieldsOk))?.message).toMatch(/remarks/);
  });

  it("accepts names of letters (accented too), spaces and . ' -", () => {
    for (const name of ["D'Souza", 'A. K. Sharma-Rao', 'José Müller', 'Zoë Ångström', 'a'.repeat(100)]) {
      expect(
        parsePayoutFields(nested({ beneficiary: { ...BENEFICIARY, beneficiary_name: name } })).beneficiaryName,
      ).toBe(name);
    }
  });

  it('asks the bank directory about the IFSC (live mode) and refuses an unknown branch with 4007', () => {
    const seen: string[] = [];
    const known = (ifsc: string) => {
      seen.push(ifsc);
      return ifsc !== 'HDFC0009999';
    };
    expect(parsePayoutFields(nested(), known).ifsc).toBe('HDFC0001234');
    expect(
      codeOf(() =>
        parsePayoutFields(nested({ beneficiary: { ...BENEFICIARY, beneficiary_ifsc: 'HDFC0009999' } }), known),
      ),
    ).toBe(4007);
    expect(seen).toEqual(['HDFC0001234', 'HDFC0009999']);
  });

  it('has the provider interface limits per mode, in paise', () => {
    expect(MODE_LIMITS).toEqual({
      IMPS: { min: 100n, max: 50_000_000n },
      NEFT: { min: 100n, max: 100_000_000n },
      RTGS: { min: 20_000_000n, max: 10_000_000_000n },
    });
    expect(parsePayoutFields(nested({ amount: '500000.00' })).amount).toBe(50_000_000n);
    expect(parsePayoutFields(nested({ payment_mode: 'RTGS', amount: 200000 })).amount).toBe(20_000_000n);
    expect(parsePayoutFields(nested({ payment_mode: 'NEFT', amount: '1000000' })).amount).toBe(100_000_000n);
    expect(parsePayoutFields(nested({ payment_mode: 'RTGS', amount: '100000000.00' })).amount).toBe(10_000_000_000n);
  });

  it('matches the IFSC pattern of the contract', () => {
    expect(IFSC_PATTERN.test('SBOX0000001')).toBe(true);
    expect(IFSC_PATTERN.test('ABCD0A1B2C3')).toBe(true);
    expect(IFSC_PATTERN.test('ABCD0a1b2c3')).toBe(false);
    expect(IFSC_PATTERN.test('ABCD00000001')).toBe(false);
  });
});
