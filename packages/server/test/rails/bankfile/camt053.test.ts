import { describe, expect, it } from 'vitest';
import { StatementUnreadable } from '../../../src/rails/bankfile/bankStatement.ts';
import { CAMT053_VERSIONS, parseCamt053 } from '../../../src/rails/bankfile/camt053.ts';
import { readStatementFile } from '../../../src/rails/bankfile/statementFile.ts';
import { camt053 } from '../../support/bankStatements.ts';

/** Version 02 as an Indian bank writes it: text status, AmtDtls, a batched entry, a pending one. */
const CAMT_02 = `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>HDFC20260302</MsgId><CreDtTm>2026-03-02T23:00:00+05:30</CreDtTm></GrpHdr>
    <Stmt>
      <Id>50100012345678-20260302</Id>
      <ElctrncSeqNb>61</ElctrncSeqNb>
      <CreDtTm>2026-03-02T23:00:00+05:30</CreDtTm>
      <Acct><Id><Othr><Id>50100012345678</Id></Othr></Id><Ccy>INR</Ccy></Acct>
      <Bal>
        <Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp>
        <Amt Ccy="INR">250000.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-03-02</Dt></Dt>
      </Bal>
      <Bal>
        <Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp>
        <Amt Ccy="INR">248399.50</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-03-02</Dt></Dt>
      </Bal>
      <Bal>
        <Tp><CdOrPrtry><Prtry>BANKSPECIFIC</Prtry></CdOrPrtry></Tp>
        <Amt Ccy="INR">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-03-02</Dt></Dt>
      </Bal>
      <Ntry>
        <Amt Ccy="INR">1000.50</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts>
        <BookgDt><Dt>2026-03-02</Dt></BookgDt><ValDt><Dt>2026-03-02</Dt></ValDt>
        <AcctSvcrRef>HDFCN26061123456</AcctSvcrRef>
        <BkTxCd><Prtry><Cd>NEFT</Cd></Prtry></BkTxCd>
        <NtryDtls><TxDtls>
          <Refs><EndToEndId>PT01JD3K8Q5W2V7X9Y0Z1A2B3C4D</EndToEndId><ClrSysRef>HDFCN52026030212345</ClrSysRef></Refs>
          <RmtInf><Ustrd>Salary &amp; bonus</Ustrd><Ustrd>March</Ustrd></RmtInf>
        </TxDtls></NtryDtls>
      </Ntry>
      <Ntry>
        <Amt Ccy="INR">600.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts>
        <BookgDt><Dt>2026-03-02</Dt></BookgDt><ValDt><Dt>2026-03-02</Dt></ValDt>
        <BkTxCd><Prtry><Cd>BULK</Cd></Prtry></BkTxCd>
        <NtryDtls>
          <Btch><NbOfTxs>2</NbOfTxs></Btch>
          <TxDtls>
            <Refs><EndToEndId>PT01JD3K8Q5W2V7X9Y0Z1A2B3C4E</EndToEndId></Refs>
            <AmtDtls><TxAmt><Amt Ccy="INR">200.00</Amt></TxAmt></AmtDtls>
          </TxDtls>
          <TxDtls>
            <Refs><EndToEndId>NOTPROVIDED</EndToEndId><ClrSysRef>412345678901</ClrSysRef></Refs>
            <AmtDtls><TxAmt><Amt Ccy="INR">400.00</Amt></TxAmt></AmtDtls>
          </TxDtls>
        </NtryDtls>
      </Ntry>
      <Ntry>
        <Amt Ccy="INR">999.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>PDNG</Sts>
        <BookgDt><Dt>2026-03-02</Dt></BookgDt><ValDt><Dt>2026-03-03</Dt></ValDt>
        <BkTxCd><Prtry><Cd>NEFT</Cd></Prtry></BkTxCd>
      </Ntry>
    </Stmt>
  </BkToCstmrStmt>
</Document>`;

/** Version 08 with a namespace prefix: Sts/Cd, TxDtls/Amt, date-times, a return, a reversal, an overdraft. */
const CAMT_08 = `<?xml version="1.0" encoding="UTF-8"?>
<c:Document xmlns:c="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">
  <c:BkToCstmrStmt>
    <c:GrpHdr><c:MsgId>M1</c:MsgId><c:CreDtTm>2026-03-02T23:00:00+05:30</c:CreDtTm></c:GrpHdr>
    <c:Stmt>
      <c:Id>STMT-8</c:Id>
      <c:FrToDt><c:FrDtTm>2026-03-01T00:00:00+05:30</c:FrDtTm><c:ToDtTm>2026-03-02T23:59:59+05:30</c:ToDtTm></c:FrToDt>
      <c:Acct><c:Id><c:IBAN>DE89370400440532013000</c:IBAN></c:Id></c:Acct>
      <c:Bal>
        <c:Tp><c:CdOrPrtry><c:Cd>PRCD</c:Cd></c:CdOrPrtry></c:Tp>
        <c:Amt Ccy="EUR">10.00</c:Amt><c:CdtDbtInd>DBIT</c:CdtDbtInd><c:Dt><c:DtTm>2026-02-28T23:59:59+01:00</c:DtTm></c:Dt>
      </c:Bal>
      <c:Bal>
        <c:Tp><c:CdOrPrtry><c:Cd>CLAV</c:Cd></c:CdOrPrtry></c:Tp>
        <c:Amt Ccy="EUR">40.000</c:Amt><c:CdtDbtInd>CRDT</c:CdtDbtInd><c:Dt><c:Dt>2026-03-02</c:Dt></c:Dt>
      </c:Bal>
      <c:Ntry>
        <c:Amt Ccy="EUR">50.00</c:Amt><c:CdtDbtInd>CRDT</c:CdtDbtInd><c:RvslInd>true</c:RvslInd>
        <c:Sts><c:Cd>BOOK</c:Cd></c:Sts>
        <c:BookgDt><c:DtTm>2026-03-02T09:00:00+01:00</c:DtTm></c:BookgDt><c:ValDt><c:Dt>2026-03-02</c:Dt></c:ValDt>
        <c:AcctSvcrRef>BANK-1</c:AcctSvcrRef>
        <c:BkTxCd/>
        <c:NtryDtls><c:TxDtls>
          <c:Refs><c:EndToEndId>PT01JD3K8Q5W2V7X9Y0Z1A2B3C4D</c:EndToEndId><c:TxId>TX-9</c:TxId></c:Refs>
          <c:Amt Ccy="EUR">50.00</c:Amt><c:CdtDbtInd>CRDT</c:CdtDbtInd>
          <c:RtrInf><c:Rsn><c:Cd>AC04</c:Cd></c:Rsn></c:RtrInf>
        </c:TxDtls></c:NtryDtls>
      </c:Ntry>
    </c:Stmt>
  </c:BkToCstmrStmt>
</c:Document>`;

const unreadable = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(StatementUnreadable);
    return (err as Error).message;
  }
  throw new Error('expected StatementUnreadable');
};

describe('camt.053', () => {
  it('reads version 02: balances, entries, batched TxDtls with their own amounts, pending entries', () => {
    const [s] = parseCamt053(CAMT_02);
    expect(s).toMatchObject({
      format: 'camt.053',
      version: 'camt.053.001.02',
      account: '50100012345678',
      statementId: '50100012345678-20260302',
      currency: 'INR',
      periodFrom: '2026-03-02',
      periodTo: '2026-03-02',
    });
    expect(s?.balances.map((b) => [b.type, b.amount, b.date])).toEqual([
      ['OPBD', 25_000_000n, '2026-03-02'],
      ['CLBD', 24_839_950n, '2026-03-02'],
      ['PRTRY:BANKSPECIFIC', 100n, '2026-03-02'],
    ]);
    const [single, batch, pending] = s?.entries ?? [];
    expect(single).toMatchObject({ direction: 'debit', amount: 100_050n, status: 'BOOK', detailed: true });
    expect(single?.transactions).toEqual([
      {
        amount: 100_050n,
        currency: 'INR',
        endToEndId: 'PT01JD3K8Q5W2V7X9Y0Z1A2B3C4D',
        utrs: ['HDFCN52026030212345', 'HDFCN26061123456'],
        references: ['Salary & bonus March'],
        bankReference: 'HDFCN26061123456',
        isReturn: false,
        returnReason: null,
        remittance: 'Salary & bonus March',
        // A debit's related parties: none of them are read for deposits (only credits name a virtual account).
        parties: {
          creditorAccount: null,
          remitterAccount: null,
          remitterIfsc: null,
          remitterName: null,
        },
      },
    ]);
    expect(batch?.transactions.map((t) => [t.amount, t.endToEndId, t.utrs])).toEqual([
      [20_000n, 'PT01JD3K8Q5W2V7X9Y0Z1A2B3C4E', []],
      [40_000n, null, ['412345678901']],
    ]);
    expect(pending).toMatchObject({ status: 'PDNG', valueDate: '2026-03-03', detailed: false });
    expect(pending?.transactions).toHaveLength(1);
  });

  it('reads version 08 with a prefix: Sts/Cd, TxDtls/Amt, date-times, a return, a reversal, an overdraft', () => {
    const [s] = parseCamt053(CAMT_08);
    expect(s).toMatchObject({
      version: 'camt.053.001.08',
      account: 'DE89370400440532013000',
      currency: 'EUR',
      periodFrom: '2026-03-01',
      periodTo: '2026-03-02',
    });
    expect(s?.balances.map((b) => [b.type, b.amount, b.date])).toEqual([
      ['PRCD', -1_000n, '2026-02-28'],
      ['CLAV', 4_000n, '2026-03-02'],
    ]);
    expect(s?.entries[0]).toMatchObject({
      direction: 'credit',
      reversal: true,
      status: 'BOOK',
      bookingDate: '2026-03-02',
      bankReference: 'BANK-1',
    });
    expect(s?.entries[0]?.transactions[0]).toMatchObject({
      amount: 5_000n,
      currency: 'EUR',
      isReturn: true,
      returnReason: 'AC04',
      references: ['TX-9'],
      utrs: ['BANK-1'],
    });
  });

  it('reads every version from 02 to 08, the namespace saying which; others are refused by name', () => {
    for (const v of CAMT053_VERSIONS) {
      const xml = camt053({ entries: [{ direction: 'debit', amount: '1.00' }] }, '08').replace('001.08', `001.${v}`);
      expect(parseCamt053(xml)[0]?.version).toBe(`camt.053.001.${v}`);
    }
    const doc = camt053({ entries: [] });
    expect(unreadable(() => parseCamt053(doc.replace('001.08', '001.09')))).toMatch(
      /camt\.053\.001\.09 is not supported: Payrail reads camt\.053\.001\.02 to camt\.053\.001\.08/,
    );
    expect(unreadable(() => parseCamt053(doc.replace('camt.053.001.08', 'camt.054.001.08')))).toMatch(
      /camt\.054\.001\.08 is not a bank-to-customer statement/,
    );
    expect(unreadable(() => parseCamt053(doc.replace(/ xmlns="[^"]+"/, '')))).toMatch(/no ISO 20022 namespace/);
  });

  it('answers malformed documents with what is wrong', () => {
    const ok = camt053({ entries: [{ direction: 'debit', amount: '1.00' }] });
    const cases: [string, RegExp][] = [
      [ok.replace('</Stmt>', ''), /not well-formed/],
      [
        ok.replace('<Amt Ccy="INR">1.00</Amt>', '<Amt Ccy="INR">1.005</Amt>'),
        /entry 1 amount: amount 1\.005 has more than two decimals/,
      ],
      [ok.replace('<Amt Ccy="INR">1.00</Amt>', '<Amt Ccy="INR">1e3</Amt>'), /not a decimal amount/],
      [ok.replace('<Amt Ccy="INR">1.00</Amt>', '<Amt Ccy="INR">-1.00</Amt>'), /not a decimal amount/],
      [
        ok.replace('<CdtDbtInd>DBIT</CdtDbtInd><Sts>', '<CdtDbtInd>DEBIT</CdtDbtInd><Sts>'),
        /CdtDbtInd must be CRDT or DBIT/,
      ],
      [
        ok.replace('<ValDt><Dt>2026-03-02</Dt>', '<ValDt><Dt>2026-02-30</Dt>'),
        /value date: "2026-02-30" is not a date/,
      ],
      [ok.replace(/<Id>STMT-[^<]+<\/Id>/, ''), /has no Id/],
      [ok.replace(/<Stmt>[\s\S]*<\/Stmt>/, ''), /holds no statement/],
      [ok.replace('<Stmt>', '<Stmt><constructor>1</constructor>'), /not well-formed/],
    ];
    for (const [xml, message] of cases) expect(unreadable(() => parseCamt053(xml))).toMatch(message);
    // Trailing zeros past the second decimal are exact, so they are read.
    const exact = ok.replace('<Amt Ccy="INR">1.00</Amt>', '<Amt Ccy="INR">1.00000</Amt>');
    expect(parseCamt053(exact)[0]?.entries[0]?.amount).toBe(100n);
  });

  it('refuses DOCTYPE and ENTITY declarations before parsing (no entity is ever expanded), quickly', () => {
    const laughs =
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">' +
      Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`).join('') +
      ']><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>&lol9;</BkToCstmrStmt></Document>';
    const external =
      '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]>' +
      '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">&x;</Document>';
    for (const xml of [laughs, external, camt053({ entries: [] }).replace('<Document', '<!doctype x><Document')]) {
      const started = performance.now();
      expect(unreadable(() => readStatementFile(Buffer.from(xml)))).toBe(
        'DOCTYPE and ENTITY declarations are refused in statements',
      );
      expect(performance.now() - started).toBeLessThan(50);
    }
  });

  it('refuses deep nesting and oversized files without parsing them', () => {
    const deep = camt053({ entries: [] }).replace('<Stmt>', `<Stmt>${'<a>'.repeat(5000)}${'</a>'.repeat(5000)}`);
    const started = performance.now();
    expect(unreadable(() => parseCamt053(deep))).toMatch(/not well-formed: Maximum nested tags exceeded/);
    expect(performance.now() - started).toBeLessThan(500);
    const huge = Buffer.alloc(50 * 1024 * 1024 + 1, 0x20);
    expect(unreadable(() => readStatementFile(huge))).toMatch(/too large/);
  });

  it('keeps every value as text: amounts, ids and references are never numbers', () => {
    const xml = camt053({
      entries: [{ direction: 'debit', amount: '12345678901234.56', e2e: '00012', utr: '000123456789' }],
      opening: '99999999999999.99',
    });
    const [s] = parseCamt053(xml);
    expect(s?.entries[0]?.amount).toBe(1_234_567_890_123_456n);
    expect(s?.entries[0]?.transactions[0]).toMatchObject({ endToEndId: '00012', utrs: ['000123456789'] });
  });

  it('tells XML from MT940 by the content, and each from the other when a format is named', () => {
    const xml = Buffer.from(`\uFEFF  ${camt053({ entries: [] })}`);
    expect(readStatementFile(xml)[0]?.format).toBe('camt.053');
    expect(unreadable(() => readStatementFile(xml, 'mt940'))).toMatch(/this is XML, not MT940/);
    expect(unreadable(() => readStatementFile(Buffer.from(':20:X'), 'camt.053'))).toMatch(/not XML/);
    expect(unreadable(() => readStatementFile(Buffer.alloc(0)))).toBe('the statement is empty');
    const latin1 = Buffer.from(
      camt053({ entries: [{ direction: 'credit', amount: '1.00', remittance: 'Müller' }] }).replace(
        'encoding="UTF-8"',
        'encoding="ISO-8859-1"',
      ),
      'latin1',
    );
    expect(readStatementFile(latin1)[0]?.entries[0]?.transactions[0]?.remittance).toBe('Müller');
  });
});
