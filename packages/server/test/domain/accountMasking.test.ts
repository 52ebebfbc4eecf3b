import { describe, expect, it } from 'vitest';
import { maskAccountNumber, maskAccountNumbers, seesFullAccountNumbers } from '../../src/domain/accountMasking.ts';

/** Who sees full account numbers (docs/operator/console.md): finance and admin; a viewer reads the last four. */
describe('account number masking', () => {
  it('finance and admin see full numbers; a viewer does not', () => {
    expect(seesFullAccountNumbers('admin')).toBe(true);
    expect(seesFullAccountNumbers('finance')).toBe(true);
    expect(seesFullAccountNumbers('viewer')).toBe(false);
  });

  it('masks to the last four digits, a short number whole', () => {
    expect(maskAccountNumber('123456789012')).toBe('XXXX9012');
    expect(maskAccountNumber('12345')).toBe('XXXX2345');
    expect(maskAccountNumber('1234')).toBe('XXXX');
  });

  it('masks every account number field wherever it sits, and leaves the rest and the input alone', () => {
    const page = {
      data: [
        {
          transaction_id: 'PT01',
          amount: '100.00',
          beneficiary: { beneficiary_name: 'Asha Rao', beneficiary_acc_number: '123456789012', beneficiary_ifsc: 'X' },
        },
        { beneficiary_acc_number: '998877665544', utr_number: '123456789012' },
      ],
      accounts: [{ account_number: '50100012345678', ifsc: 'HDFC0000001' }],
      reported: { remitter_account: '000111222333', amount: '5.00' },
      has_more: false,
      next_cursor: null,
    };
    const before = JSON.stringify(page);
    const masked = maskAccountNumbers(page);
    expect(masked).toEqual({
      data: [
        {
          transaction_id: 'PT01',
          amount: '100.00',
          beneficiary: { beneficiary_name: 'Asha Rao', beneficiary_acc_number: 'XXXX9012', beneficiary_ifsc: 'X' },
        },
        { beneficiary_acc_number: 'XXXX5544', utr_number: '123456789012' },
      ],
      accounts: [{ account_number: 'XXXX5678', ifsc: 'HDFC0000001' }],
      reported: { remitter_account: 'XXXX2333', amount: '5.00' },
      has_more: false,
      next_cursor: null,
    });
    expect(JSON.stringify(page)).toBe(before);
    const plain = { name: 'no accounts', at: new Date(0) };
    expect(maskAccountNumbers(plain)).toBe(plain);
  });
});
