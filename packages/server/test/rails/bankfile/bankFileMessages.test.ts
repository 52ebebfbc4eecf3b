import fc from 'fast-check';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { simulateOnce, writeCamt054, writePain002 } from '../../../../cli/src/bankSimulator.ts';
import { readCamt054 } from '../../../src/rails/bankfile/camt054.ts';
import { readPain001, writePain001, type FilePayment } from '../../../src/rails/bankfile/pain001.ts';
import { readPain002 } from '../../../src/rails/bankfile/pain002.ts';
import { readStatementFile } from '../../../src/rails/bankfile/statementFile.ts';
import { checkArithmetic } from '../../../src/domain/reconciliation.ts';
import { describeReason, REASON_CODES } from '../../../src/rails/bankfile/reasonCodes.ts';
import { BankFileUnreadable, parseRupees } from '../../../src/rails/bankfile/xmlRead.ts';

const DEBTOR = { name: 'Acme & Sons', account: '50100012345678', ifsc: 'HDFC0000123', initiatingParty: 'Acme Payouts' };

const payment = (n: number, over: Partial<FilePayment> = {}): FilePayment => ({
  payoutId: `PT01JBANKF1LE0000000000000${String(n).padStart(2, '0')}`.slice(0, 28),
  amount: 100_00n + BigInt(n),
  paymentMode: (['IMPS', 'NEFT', 'RTGS'] as const)[n % 3] as FilePayment['paymentMode'],
  beneficiaryName: `Beneficiary ${n}`,
  accountNumber: `10000000000${n}`,
  ifsc: 'SBIN0001234',
  remarks: `invoice ${n}`,
  ...over,
});

/** The generated file, as a plain tree (namespace prefixes dropped, text kept). */
const tree = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  isArray: (name) => ['PmtInf', 'CdtTrfTxInf'].includes(name),
});

describe('pain.001.001.10 writer', () => {
  const payments = [payment(1), payment(2), payment(3), payment(4, { remarks: '' })];
  const xml = writePain001({
    msgId: 'PR01JMSGID0000000000000000AB',
    createdAt: new Date('2026-11-25T18:40:00Z'),
    executionDate: '2026-11-26',
    debtor: DEBTOR,
    payments,
  });
  const doc = tree.parse(xml).Document;

  it('has the namespace, the group header with exact counts and control sum, and the initiating party', () => {
    expect(doc['@xmlns']).toBe('urn:iso:std:iso:20022:tech:xsd:pain.001.001.10');
    const h = doc.CstmrCdtTrfInitn.GrpHdr;
    expect(h.MsgId).toBe('PR01JMSGID0000000000000000AB');
    expect(h.CreDtTm).toBe('2026-11-26T00:10:00+05:30');
    expect(h.NbOfTxs).toBe('4');
    expect(h.CtrlSum).toBe('400.10');
    expect(h.InitgPty.Nm).toBe('Acme Payouts');
  });

  it('writes one PmtInf per payment mode with its own counts, sums and the debtor', () => {
    const infos = doc.CstmrCdtTrfInitn.PmtInf;
    expect(infos.map((i: { PmtTpInf: { LclInstrm: { Prtry: string } } }) => i.PmtTpInf.LclInstrm.Prtry)).toEqual([
      'NEFT',
      'RTGS',
      'IMPS',
    ]);
    for (const info of infos) {
      const txs = info.CdtTrfTxInf;
      expect(info.PmtMtd).toBe('TRF');
      expect(info.PmtInfId.length).toBeLessThanOrEqual(35);
      expect(info.NbOfTxs).toBe(String(txs.length));
      const sum = txs.reduce((s: bigint, t: { Amt: { InstdAmt: { '#text': string } } }) => {
        return s + parseRupees(t.Amt.InstdAmt['#text'], 'test');
      }, 0n);
      expect(parseRupees(info.CtrlSum, 'test')).toBe(sum);
      expect(info.ReqdExctnDt.Dt).toBe('2026-11-26');
      expect(info.Dbtr.Nm).toBe('Acme & Sons');
      expect(info.DbtrAcct.Id.Othr.Id).toBe('50100012345678');
      expect(info.DbtrAgt.FinInstnId.ClrSysMmbId).toEqual({ ClrSysId: { Cd: 'INFSC' }, MmbId: 'HDFC0000123' });
    }
    const tx = infos[2].CdtTrfTxInf[0];
    expect(tx.PmtId).toEqual({ InstrId: payments[2]?.payoutId, EndToEndId: payments[2]?.payoutId });
    expect(tx.Amt.InstdAmt).toEqual({ '#text': '100.03', '@Ccy': 'INR' });
    expect(tx.CdtrAgt.FinInstnId.ClrSysMmbId).toEqual({ ClrSysId: { Cd: 'INFSC' }, MmbId: 'SBIN0001234' });
    expect(tx.Cdtr.Nm).toBe('Beneficiary 3');
    expect(tx.CdtrAcct.Id.Othr.Id).toBe('100000000003');
    expect(tx.RmtInf.Ustrd).toBe('invoice 3');
    // No remarks, no RmtInf (Max140Text has a minimum length of 1).
    const bare = infos
      .flatMap((i: { CdtTrfTxInf: { RmtInf?: unknown }[] }) => i.CdtTrfTxInf)
      .filter((t: { RmtInf?: unknown }) => !t.RmtInf);
    expect(bare).toHaveLength(1);
  });

  it('writes the elements in the order of the XSD’s sequences', () => {
    // preserveOrder keeps the children in document order: [{ Name: [children…] }, …].
    type Ordered = Record<string, Ordered[]>;
    const ordered = new XMLParser({ preserveOrder: true, ignoreAttributes: true }).parse(xml) as Ordered[];
    const names = (nodes: Ordered[]) => nodes.flatMap((n) => Object.keys(n).filter((k) => k !== '#text'));
    const childrenOf = (nodes: Ordered[], name: string) => nodes.find((n) => name in n)?.[name] ?? [];
    const initiation = childrenOf(childrenOf(ordered, 'Document'), 'CstmrCdtTrfInitn');
    expect(names(childrenOf(initiation, 'GrpHdr'))).toEqual(['MsgId', 'CreDtTm', 'NbOfTxs', 'CtrlSum', 'InitgPty']);
    const info = childrenOf(initiation, 'PmtInf');
    expect(names(info)).toEqual([
      'PmtInfId',
      'PmtMtd',
      'NbOfTxs',
      'CtrlSum',
      'PmtTpInf',
      'ReqdExctnDt',
      'Dbtr',
      'DbtrAcct',
      'DbtrAgt',
      ...Array(names(info).filter((n) => n === 'CdtTrfTxInf').length).fill('CdtTrfTxInf'),
    ]);
    expect(names(childrenOf(info, 'CdtTrfTxInf'))).toEqual(['PmtId', 'Amt', 'CdtrAgt', 'Cdtr', 'CdtrAcct', 'RmtInf']);
    expect(names(childrenOf(childrenOf(info, 'CdtTrfTxInf'), 'PmtId'))).toEqual(['InstrId', 'EndToEndId']);
  });

  it('escapes remarks and cuts them to 140 characters, never inside a character', () => {
    const remarks = `<b>&"'${'ह'.repeat(200)}`;
    const out = writePain001({
      msgId: 'M1',
      createdAt: new Date(),
      executionDate: '2026-11-26',
      debtor: DEBTOR,
      payments: [payment(1, { remarks })],
    });
    expect(out).toContain('&lt;b&gt;&amp;');
    expect(out).not.toContain('<b>');
    const back = readPain001(Buffer.from(out));
    expect(Array.from(back.payments[0]?.remarks ?? '')).toHaveLength(140);
    expect(back.payments[0]?.remarks).toBe(Array.from(remarks).slice(0, 140).join(''));
  });

  it('keeps amounts exact beyond what a JavaScript number holds', () => {
    const huge = 9_007_199_254_740_993n; // 2^53 + 1 paise
    const out = writePain001({
      msgId: 'M2',
      createdAt: new Date(),
      executionDate: '2026-11-26',
      debtor: DEBTOR,
      payments: [payment(1, { amount: huge }), payment(2, { amount: 1n })],
    });
    expect(out).toContain('<InstdAmt Ccy="INR">90071992547409.93</InstdAmt>');
    const back = readPain001(Buffer.from(out));
    expect(back.controlSum).toBe(huge + 1n);
  });

  it('round-trips every payment through the reader', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            amount: fc.bigInt({ min: 1n, max: 10n ** 15n }),
            mode: fc.constantFrom('IMPS' as const, 'NEFT' as const, 'RTGS' as const),
            remarks: fc.string({ maxLength: 200 }).map((s) => s.replace(/[^\x20-\x7e]/g, 'x').trim()),
            name: fc.stringMatching(/^[A-Za-z][A-Za-z .&<>']{0,60}[A-Za-z]$/),
          }),
          { minLength: 1, maxLength: 30 },
        ),
        (rows) => {
          const payments = rows.map((r, i) =>
            payment(i, { amount: r.amount, paymentMode: r.mode, remarks: r.remarks, beneficiaryName: r.name }),
          );
          const back = readPain001(
            Buffer.from(
              writePain001({
                msgId: 'RT',
                createdAt: new Date(),
                executionDate: '2026-01-01',
                debtor: DEBTOR,
                payments,
              }),
            ),
          );
          expect(back.numberOfTransactions).toBe(payments.length);
          expect(back.controlSum).toBe(payments.reduce((s, p) => s + p.amount, 0n));
          const byId = new Map(back.payments.map((p) => [p.payoutId, p]));
          for (const p of payments) {
            expect(byId.get(p.payoutId)).toEqual({ ...p, remarks: p.remarks.slice(0, 140).trim() });
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('pain.002.001.11 and camt.054.001.08 readers', () => {
  it('read the simulated bank’s answers to a generated file (round trip)', async () => {
    const { mkdtemp, readFile, readdir, writeFile, mkdir } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = await mkdtemp(join(tmpdir(), 'bankfile-sim-'));
    const payments = [
      payment(1),
      payment(2, { ifsc: 'SBOX0000001', accountNumber: '100000000002' }),
      payment(3, { ifsc: 'SBOX0000001', accountNumber: '100000000003' }),
      payment(4, { ifsc: 'TEST0001234', accountNumber: '9876543210' }),
      payment(5, { amount: 12_345_678_901_234_56n }),
    ];
    const xml = writePain001({
      msgId: 'PRSIM',
      createdAt: new Date(),
      executionDate: '2026-11-26',
      debtor: DEBTOR,
      payments,
    });
    await mkdir(join(dir, 'outbox'), { recursive: true });
    await writeFile(join(dir, 'outbox', 'PAYRAIL-PRSIM.xml'), xml);
    const answered = await simulateOnce(dir, { statement: true });
    expect(answered).toMatchObject([{ msgId: 'PRSIM', accepted: 2, rejected: 2, pending: 1 }]);
    expect(await simulateOnce(dir)).toEqual([]); // answered once only
    expect((await readdir(join(dir, 'inbox'))).sort()).toEqual([
      'CAMT053-PRSIM.xml',
      'CAMT054-PRSIM.xml',
      'PAIN002-PRSIM.xml',
    ]);
    const report = readPain002(await readFile(join(dir, 'inbox', 'PAIN002-PRSIM.xml')));
    expect(report.originalMsgId).toBe('PRSIM');
    expect(report.groupStatus).toBeNull();
    const status = new Map(report.transactions.map((t) => [t.endToEndId, t]));
    expect(status.get(payments[0]!.payoutId)).toMatchObject({ status: 'ACCP', reasonCode: null });
    expect(status.get(payments[1]!.payoutId)).toMatchObject({ status: 'RJCT', reasonCode: 'AC01' });
    expect(status.get(payments[2]!.payoutId)).toMatchObject({ status: 'PDNG' });
    expect(status.get(payments[3]!.payoutId)).toMatchObject({ status: 'RJCT', reasonCode: 'AC01' });
    const booked = readCamt054(await readFile(join(dir, 'inbox', 'CAMT054-PRSIM.xml')));
    expect(booked.transactions.map((t) => [t.endToEndId, t.amount, t.direction, t.entryStatus])).toEqual([
      [payments[0]!.payoutId, payments[0]!.amount, 'DBIT', 'BOOK'],
      [payments[4]!.payoutId, 12_345_678_901_234_56n, 'DBIT', 'BOOK'],
    ]);
    expect(booked.transactions.every((t) => /^\d{12}$/.test(t.clearingReference ?? ''))).toBe(true);
    // The statement is one reconciliation reads, and its balances add up.
    const [statement] = readStatementFile(await readFile(join(dir, 'inbox', 'CAMT053-PRSIM.xml')), 'auto');
    expect(statement?.entries).toHaveLength(2);
    expect(() => checkArithmetic(statement!)).not.toThrow();
  });

  it('reads a group rejection and a return with their reasons', () => {
    const report = readPain002(
      Buffer.from(`<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.11"><CstmrPmtStsRpt>
        <GrpHdr><MsgId>B1</MsgId><CreDtTm>2026-11-25T10:00:00</CreDtTm></GrpHdr>
        <OrgnlGrpInfAndSts><OrgnlMsgId>PRX</OrgnlMsgId><OrgnlMsgNmId>pain.001.001.10</OrgnlMsgNmId><GrpSts>RJCT</GrpSts>
          <StsRsnInf><Rsn><Cd>FF01</Cd></Rsn><AddtlInf>bad</AddtlInf><AddtlInf>file</AddtlInf></StsRsnInf></OrgnlGrpInfAndSts>
      </CstmrPmtStsRpt></Document>`),
    );
    expect(report).toMatchObject({ groupStatus: 'RJCT', groupReasonCode: 'FF01', groupAdditionalInfo: 'bad file' });
    const block = readPain002(
      Buffer.from(`<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.11"><CstmrPmtStsRpt>
        <GrpHdr><MsgId>B2</MsgId></GrpHdr><OrgnlGrpInfAndSts><OrgnlMsgId>PRX</OrgnlMsgId></OrgnlGrpInfAndSts>
        <OrgnlPmtInfAndSts><OrgnlPmtInfId>PRX-NEFT</OrgnlPmtInfId><PmtInfSts>RJCT</PmtInfSts>
          <StsRsnInf><Rsn><Cd>AM04</Cd></Rsn></StsRsnInf></OrgnlPmtInfAndSts></CstmrPmtStsRpt></Document>`),
    );
    expect(block.paymentInfos).toEqual([
      { originalPmtInfId: 'PRX-NEFT', status: 'RJCT', reasonCode: 'AM04', additionalInfo: null },
    ]);
    const camt = readCamt054(
      Buffer.from(`<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08"><BkToCstmrDbtCdtNtfctn>
        <GrpHdr><MsgId>N1</MsgId></GrpHdr><Ntfctn><Id>N1</Id>
        <Ntry><Amt Ccy="INR">10.5</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><AcctSvcrRef>R9</AcctSvcrRef>
          <NtryDtls><TxDtls><Refs><EndToEndId>PTX</EndToEndId></Refs>
          <RtrInf><Rsn><Cd>AC04</Cd></Rsn><AddtlInf>closed</AddtlInf></RtrInf></TxDtls></NtryDtls></Ntry>
        </Ntfctn></BkToCstmrDbtCdtNtfctn></Document>`),
    );
    expect(camt.transactions[0]).toMatchObject({
      direction: 'CRDT',
      amount: 1050n,
      endToEndId: 'PTX',
      isReturn: true,
      returnReasonCode: 'AC04',
      returnAdditionalInfo: 'closed',
      accountServicerReference: 'R9',
    });
  });

  it('names the reason codes the contract lists', () => {
    for (const code of ['AC01', 'AC04', 'AC06', 'AG01', 'AM04', 'AM05', 'BE01', 'DUPL', 'FF01', 'MS03', 'NARR']) {
      expect(REASON_CODES[code]).toBeTruthy();
    }
    expect(describeReason('AC01')).toBe('AC01 Incorrect account number');
    expect(describeReason('NARR', 'beneficiary asked')).toBe('NARR Narrative reason given: beneficiary asked');
    expect(describeReason('ZZ99')).toContain('ZZ99');
  });

  const refused = (bytes: string | Buffer, why: RegExp) => {
    const input = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes);
    for (const read of [readPain002, readCamt054]) {
      expect(() => read(input)).toThrow(BankFileUnreadable);
      expect(() => read(input)).toThrow(why);
    }
  };

  it('refuses what is not one of its messages, with a reason', () => {
    refused('', /empty/);
    refused('hello', /not XML/);
    refused('<a>', /namespace/);
    refused('<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.008.001.08"/>', /not a message Payrail reads/);
    expect(() =>
      readPain002(Buffer.from('<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.11"><CstmrPmtStsRpt>')),
    ).toThrow(/well-formed|missing/);
    expect(() =>
      readCamt054(
        Buffer.from(`<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08"><BkToCstmrDbtCdtNtfctn>
        <GrpHdr><MsgId>N1</MsgId></GrpHdr><Ntfctn><Ntry><Amt Ccy="INR">1e5</Amt><CdtDbtInd>DBIT</CdtDbtInd>
        <Sts><Cd>BOOK</Cd></Sts></Ntry></Ntfctn></BkToCstmrDbtCdtNtfctn></Document>`),
      ),
    ).toThrow(/not an amount/);
    expect(() =>
      readCamt054(
        Buffer.from(`<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08"><BkToCstmrDbtCdtNtfctn>
        <GrpHdr><MsgId>N1</MsgId></GrpHdr><Ntfctn><Ntry><Amt Ccy="INR">1.001</Amt><CdtDbtInd>DBIT</CdtDbtInd>
        <Sts><Cd>BOOK</Cd></Sts></Ntry></Ntfctn></BkToCstmrDbtCdtNtfctn></Document>`),
      ),
    ).toThrow(/fractions of a paisa/);
  });

  it('refuses entity expansion, deep nesting and huge files quickly', () => {
    const bomb = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>
      <Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.11"><CstmrPmtStsRpt>&lol2;</CstmrPmtStsRpt></Document>`;
    refused(bomb, /DOCTYPE or ENTITY/);
    const deep = `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08">${'<a>'.repeat(100_000)}${'</a>'.repeat(100_000)}</Document>`;
    const started = performance.now();
    refused(deep, /deeper than/);
    const huge = Buffer.alloc(65 * 1024 * 1024, 0x20);
    refused(huge, /larger than/);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('never crashes on malformed input: it reads it or refuses it with BankFileUnreadable (fuzz)', () => {
    const valid = writePain002('PRF', [], new Date());
    const camt = writeCamt054('PRF', '1', [], new Map(), new Date());
    const mutate = (base: string) =>
      fc
        .tuple(fc.nat(base.length), fc.nat(base.length), fc.string({ maxLength: 40 }))
        .map(([a, b, s]) => base.slice(0, Math.min(a, b)) + s + base.slice(Math.max(a, b)));
    fc.assert(
      fc.property(
        fc.oneof(mutate(valid), mutate(camt), fc.string({ maxLength: 300 }), fc.uint8Array({ maxLength: 300 })),
        (input) => {
          const bytes = typeof input === 'string' ? Buffer.from(input) : Buffer.from(input);
          for (const read of [readPain002, readCamt054]) {
            try {
              const result = read(bytes);
              expect(result).toBeTypeOf('object');
            } catch (err) {
              expect(err).toBeInstanceOf(BankFileUnreadable);
            }
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
