import { describe, expect, it } from 'vitest';
import { StatementUnreadable } from '../../../src/rails/bankfile/bankStatement.ts';
import { parseMt940 } from '../../../src/rails/bankfile/mt940.ts';
import { readStatementFile } from '../../../src/rails/bankfile/statementFile.ts';

/** As SWIFT delivers it: blocks 1, 2 and 4, CRLF, :86: over several lines, reversals, funds code, :64: and :65:. */
const MT940 = [
  '{1:F01PAYRINBBAXXX0000000000}{2:O9401200260102HDFCINBBAXXX00000000002601021200N}{4:',
  ':20:HDFC260102',
  ':25:50100012345678',
  ':28C:00061/001',
  ':60F:C251231INR250000,00',
  ':61:2601021231DR1000,50NTRFPT01JD3K8Q5W2V7X9Y0Z1A2B3C4D//HDFCN2606112',
  'SALARY MARCH',
  ':86:NEFT PAYMENT UTR NO: HDFCN52026010212345',
  'TO ASHA RAO',
  ':61:260102C500,NTRFNONREF//BANKREF77',
  ':86:/EREF/INV-42/RTRN/AC04 returned by beneficiary bank',
  ':61:260102RC25,25NMSCREFUND1',
  ':61:260102RD0,75NCHGCHARGES',
  ':62F:C260102INR249474,00',
  ':64:C260102INR249474,00',
  ':65:C260103INR249474,00',
  '-}',
].join('\r\n');

const unreadable = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(StatementUnreadable);
    return (err as Error).message;
  }
  throw new Error('expected StatementUnreadable');
};

describe('MT940', () => {
  it('reads a statement in SWIFT blocks: balances mapped to ISO types, :61: with its :86:', () => {
    const [s] = parseMt940(MT940);
    expect(s).toMatchObject({
      format: 'mt940',
      version: 'MT940',
      account: '50100012345678',
      statementId: 'HDFC260102/00061/001',
      currency: 'INR',
      periodFrom: '2025-12-31',
      periodTo: '2026-01-02',
    });
    expect(s?.balances.map((b) => [b.type, b.amount, b.date])).toEqual([
      ['OPBD', 25_000_000n, '2025-12-31'],
      ['CLBD', 24_947_400n, '2026-01-02'],
      ['CLAV', 24_947_400n, '2026-01-02'],
      ['FWAV', 24_947_400n, '2026-01-03'],
    ]);
    const [payout, returned, reversedCredit, reversedDebit] = s?.entries ?? [];
    // D with funds code R; the entry date 1231 falls in the year before the value date.
    expect(payout).toMatchObject({
      direction: 'debit',
      amount: 100_050n,
      reversal: false,
      status: 'BOOK',
      valueDate: '2026-01-02',
      bookingDate: '2025-12-31',
      bankReference: 'HDFCN2606112',
      detailed: false,
    });
    expect(payout?.transactions[0]).toMatchObject({
      endToEndId: 'PT01JD3K8Q5W2V7X9Y0Z1A2B3C4D',
      utrs: ['HDFCN52026010212345', 'HDFCN2606112'],
      isReturn: false,
      remittance: 'NEFT PAYMENT UTR NO: HDFCN52026010212345 TO ASHA RAO',
    });
    expect(returned).toMatchObject({ direction: 'credit', amount: 50_000n, bookingDate: '2026-01-02' });
    expect(returned?.transactions[0]).toMatchObject({
      endToEndId: 'INV-42',
      utrs: ['BANKREF77'],
      isReturn: true,
      returnReason: 'AC04',
    });
    expect(returned?.transactions[0]?.references).toContain('returned by beneficiary bank');
    // RC: a credit reversed, booked as a debit; RD the other way round.
    expect(reversedCredit).toMatchObject({ direction: 'debit', amount: 2_525n, reversal: true });
    expect(reversedCredit?.transactions[0]).toMatchObject({ endToEndId: 'REFUND1', utrs: [] });
    expect(reversedDebit).toMatchObject({ direction: 'credit', amount: 75n, reversal: true });
  });

  it('reads bare messages, several statements per file, LF or CRLF', () => {
    const one = (ref: string, account: string) =>
      [
        `:20:${ref}`,
        `:25:${account}`,
        ':60F:D260301INR10,00',
        ':61:260301C10,00NTRFNONREF',
        ':62F:C260301INR0,00',
        '-',
      ].join('\n');
    const statements = parseMt940(`${one('A1', 'ACC-1')}\n${one('A2', 'ACC-2')}\n`);
    expect(statements.map((s) => [s.statementId, s.account, s.balances[0]?.amount])).toEqual([
      ['A1', 'ACC-1', -1_000n],
      ['A2', 'ACC-2', -1_000n],
    ]);
    expect(readStatementFile(Buffer.from(one('A3', 'X'))).map((s) => s.format)).toEqual(['mt940']);
  });

  it('reads statements as banks export them: header lines, framing, loose :61: and padded balances', () => {
    // Hand-made in the shapes seen in real exports: a BIC and `940` before the first message and between two,
    // SOH/ETX framing, an entry date of four spaces, an amount without its comma, a type padded with spaces, a
    // zero-padded balance, and two statements of one day sharing their reference and number.
    const text = [
      '\u0001HDFCINBBXXX',
      '940',
      ':20:DAY/1',
      ':25:50100012345678',
      ':28C:0',
      ':60F:C260301INR0000000000000000100,00',
      ':61:260301    D10,00NTRFNONREF//B1',
      ':61:2603010301C5NTRFNONREF//B2',
      ':61:260301DF2,00S   X',
      ':62F:C260301INR93,00',
      '-',
      'HDFCINBBXXX',
      '940 00',
      ':20:DAY/1',
      ':25:50100012345678',
      ':28C:0',
      ':60F:C260302INR93,00',
      ':62F:C260302INR93,00',
      '-\u0003',
    ].join('\r\n');
    const [first, second] = parseMt940(text);
    expect(first?.entries.map((e) => [e.direction, e.amount, e.bookingDate, e.bankReference])).toEqual([
      ['debit', 1_000n, '2026-03-01', 'B1'],
      ['credit', 500n, '2026-03-01', 'B2'],
      ['debit', 200n, '2026-03-01', null],
    ]);
    expect(first?.balances[0]?.amount).toBe(10_000n);
    expect([first?.statementId, second?.statementId]).toEqual(['DAY/1/0@2026-03-01', 'DAY/1/0@2026-03-02']);
  });

  it('answers malformed statements with the field and line that is wrong', () => {
    const base = [':20:R', ':25:A', ':60F:C260301INR10,00', ':61:260301D1,00NTRFX', ':62F:C260301INR9,00'];
    const variant = (i: number, line: string) => base.map((l, j) => (j === i ? line : l)).join('\n');
    const cases: [string, RegExp][] = [
      [variant(3, ':61:260301X1,00NTRFX'), /:61: \(line 4\): expected value date YYMMDD/],
      [variant(3, ':61:260301D1.00NTRFX'), /:61: \(line 4\)/],
      [variant(3, ':61:260231D1,00NTRFX'), /:61: \(line 4\): 260231 is not a date/],
      [variant(3, ':61:260301D1,005NTRFX'), /:61: \(line 4\): amount 1,005 has more than two decimals/],
      [variant(2, ':60F:C260301INR10.00'), /:60F: \(line 3\): expected C or D, YYMMDD, currency and amount/],
      [variant(1, ':25:'), /:25: \(account\) is missing/],
      [`junk\n${base.join('\n')}`, /line 1: text before the first field/],
      [base.slice(1).join('\n'), /:25: before the first :20:/],
      ['hello world', /text before the first field/],
      ['{4:\n:20:X\n', /block 4 .* is not closed/],
      ['', /no :20: field/],
    ];
    for (const [text, message] of cases) expect(unreadable(() => parseMt940(text))).toMatch(message);
  });
});
