import { randomInt } from 'node:crypto';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { istDateTime, istDay } from '@payrail/protocol';
import { XMLParser } from 'fast-xml-parser';
import { nowDate } from './clock.ts';

/**
 * A bank to try bank files with (`payrail bank simulate`, docs/operator/bank-files.md): for each new pain.001 Payrail puts
 * in DIR/outbox/, it answers in DIR/inbox/ with a pain.002 status report and a camt.054 booking the accepted
 * transfers, and with `statement` a camt.053 statement. The sandbox's failure accounts are rejected (AC01), its
 * pending account stays pending, everything else is paid. Each pain.001 is answered once: a marker per answered
 * file is kept in DIR/.bank-simulator/. Amounts stay text and bigint paise, as everywhere in Payrail.
 */

/** IFSC/account → how the simulated bank answers. */
const REJECTED = new Set(['SBOX0000001/100000000002', 'TEST0001234/9876543210']);
const PENDING = new Set(['SBOX0000001/100000000003']);
/** The simulated account's balance before its first statement (₹1,00,00,000.00). */
const OPENING_BALANCE = 1_000_000_000n;

export interface SimulatorOptions {
  statement?: boolean;
  /** The time now (tests). */
  now?: () => Date;
}

export interface Answered {
  file: string;
  msgId: string;
  accepted: number;
  rejected: number;
  pending: number;
  written: string[];
  /** Why the file was not answered (it could not be read as a pain.001). */
  error?: string;
}

interface Payment {
  endToEndId: string;
  instrId: string;
  pmtInfId: string;
  mode: string;
  amount: string;
  paise: bigint;
  ifsc: string;
  account: string;
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: false,
  removeNSPrefix: true,
  trimValues: true,
  isArray: (name) => name === 'PmtInf' || name === 'CdtTrfTxInf',
});

type Node = Record<string, unknown>;
const at = (node: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((n, name) => (n && typeof n === 'object' ? (n as Node)[name] : undefined), node);
const str = (node: unknown, ...path: string[]): string => {
  const v = at(node, ...path);
  const t = v && typeof v === 'object' ? (v as Node)['#text'] : v;
  return typeof t === 'string' ? t : '';
};

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** "123.45" → 12345n, without a JavaScript number in between. */
export function toPaise(amount: string): bigint {
  const m = /^(\d+)(?:\.(\d{1,2}))?$/.exec(amount);
  if (!m) throw new Error(`"${amount}" is not an amount`);
  return BigInt(m[1] as string) * 100n + BigInt((m[2] ?? '').padEnd(2, '0'));
}

export const formatPaise = (p: bigint) => `${p / 100n}.${(p % 100n).toString().padStart(2, '0')}`;

const newUtr = () => String(randomInt(100_000, 1_000_000)) + String(randomInt(100_000, 1_000_000));

function readPain001(xml: string): { msgId: string; debtorAccount: string; payments: Payment[] } {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new Error('DOCTYPE refused');
  const root = at(parser.parse(xml), 'Document', 'CstmrCdtTrfInitn');
  const msgId = str(root, 'GrpHdr', 'MsgId');
  if (!msgId) throw new Error('not a pain.001 (no GrpHdr/MsgId)');
  let debtorAccount = '';
  const payments: Payment[] = [];
  for (const info of (at(root, 'PmtInf') as Node[] | undefined) ?? []) {
    debtorAccount ||= str(info, 'DbtrAcct', 'Id', 'Othr', 'Id');
    for (const tx of (at(info, 'CdtTrfTxInf') as Node[] | undefined) ?? []) {
      const amount = str(tx, 'Amt', 'InstdAmt');
      payments.push({
        endToEndId: str(tx, 'PmtId', 'EndToEndId'),
        instrId: str(tx, 'PmtId', 'InstrId'),
        pmtInfId: str(info, 'PmtInfId'),
        mode: str(info, 'PmtTpInf', 'LclInstrm', 'Prtry'),
        amount,
        paise: toPaise(amount),
        ifsc: str(tx, 'CdtrAgt', 'FinInstnId', 'ClrSysMmbId', 'MmbId'),
        account: str(tx, 'CdtrAcct', 'Id', 'Othr', 'Id'),
      });
    }
  }
  return { msgId, debtorAccount, payments };
}

const statusOf = (p: Payment) =>
  REJECTED.has(`${p.ifsc}/${p.account}`) ? 'RJCT' : PENDING.has(`${p.ifsc}/${p.account}`) ? 'PDNG' : 'ACCP';

export function writePain002(msgId: string, payments: Payment[], now: Date): string {
  const byInfo = new Map<string, Payment[]>();
  for (const p of payments) {
    const block = byInfo.get(p.pmtInfId);
    if (block) block.push(p);
    else byInfo.set(p.pmtInfId, [p]);
  }
  const infos = [...byInfo]
    .map(
      ([id, list]) => `    <OrgnlPmtInfAndSts>
      <OrgnlPmtInfId>${esc(id)}</OrgnlPmtInfId>
${list
  .map((p) => {
    const status = statusOf(p);
    const reason =
      status === 'RJCT'
        ? `
        <StsRsnInf><Rsn><Cd>AC01</Cd></Rsn><AddtlInf>Account number not found at the beneficiary bank</AddtlInf></StsRsnInf>`
        : '';
    return `      <TxInfAndSts>
        <OrgnlInstrId>${esc(p.instrId)}</OrgnlInstrId>
        <OrgnlEndToEndId>${esc(p.endToEndId)}</OrgnlEndToEndId>
        <TxSts>${status}</TxSts>${reason}
      </TxInfAndSts>`;
  })
  .join('\n')}
    </OrgnlPmtInfAndSts>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.11">
  <CstmrPmtStsRpt>
    <GrpHdr>
      <MsgId>SIM2-${esc(msgId).slice(0, 30)}</MsgId>
      <CreDtTm>${istDateTime(now)}</CreDtTm>
    </GrpHdr>
    <OrgnlGrpInfAndSts>
      <OrgnlMsgId>${esc(msgId)}</OrgnlMsgId>
      <OrgnlMsgNmId>pain.001.001.10</OrgnlMsgNmId>
    </OrgnlGrpInfAndSts>
${infos}
  </CstmrPmtStsRpt>
</Document>
`;
}

/** One booked entry per paid transfer; `utrs` are the references the bank gave them. */
function entries(paid: Payment[], utrs: Map<string, string>, now: Date): string {
  return paid
    .map(
      (p) => `      <Ntry>
        <Amt Ccy="INR">${p.amount}</Amt>
        <CdtDbtInd>DBIT</CdtDbtInd>
        <Sts><Cd>BOOK</Cd></Sts>
        <BookgDt><Dt>${istDay(now)}</Dt></BookgDt>
        <ValDt><Dt>${istDay(now)}</Dt></ValDt>
        <AcctSvcrRef>SIM${utrs.get(p.endToEndId)}</AcctSvcrRef>
        <BkTxCd><Prtry><Cd>${esc(p.mode)}</Cd></Prtry></BkTxCd>
        <NtryDtls>
          <TxDtls>
            <Refs>
              <InstrId>${esc(p.instrId)}</InstrId>
              <EndToEndId>${esc(p.endToEndId)}</EndToEndId>
              <ClrSysRef>${utrs.get(p.endToEndId)}</ClrSysRef>
            </Refs>
            <Amt Ccy="INR">${p.amount}</Amt>
            <CdtDbtInd>DBIT</CdtDbtInd>
          </TxDtls>
        </NtryDtls>
      </Ntry>`,
    )
    .join('\n');
}

export function writeCamt054(msgId: string, account: string, paid: Payment[], utrs: Map<string, string>, now: Date) {
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08">
  <BkToCstmrDbtCdtNtfctn>
    <GrpHdr>
      <MsgId>SIM4-${esc(msgId).slice(0, 30)}</MsgId>
      <CreDtTm>${istDateTime(now)}</CreDtTm>
    </GrpHdr>
    <Ntfctn>
      <Id>SIM4-${esc(msgId).slice(0, 30)}</Id>
      <CreDtTm>${istDateTime(now)}</CreDtTm>
      <Acct><Id><Othr><Id>${esc(account)}</Id></Othr></Id></Acct>
${entries(paid, utrs, now)}
    </Ntfctn>
  </BkToCstmrDbtCdtNtfctn>
</Document>
`;
}

export function writeCamt053(
  msgId: string,
  account: string,
  opening: bigint,
  paid: Payment[],
  utrs: Map<string, string>,
  now: Date,
): string {
  const debits = paid.reduce((sum, p) => sum + p.paise, 0n);
  const closing = opening - debits;
  const balance = (type: string, amount: bigint) => `      <Bal>
        <Tp><CdOrPrtry><Cd>${type}</Cd></CdOrPrtry></Tp>
        <Amt Ccy="INR">${formatPaise(amount < 0n ? -amount : amount)}</Amt>
        <CdtDbtInd>${amount < 0n ? 'DBIT' : 'CRDT'}</CdtDbtInd>
        <Dt><Dt>${istDay(now)}</Dt></Dt>
      </Bal>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">
  <BkToCstmrStmt>
    <GrpHdr>
      <MsgId>SIM3-${esc(msgId).slice(0, 30)}</MsgId>
      <CreDtTm>${istDateTime(now)}</CreDtTm>
    </GrpHdr>
    <Stmt>
      <Id>SIM3-${esc(msgId).slice(0, 30)}</Id>
      <CreDtTm>${istDateTime(now)}</CreDtTm>
      <Acct><Id><Othr><Id>${esc(account)}</Id></Othr></Id><Ccy>INR</Ccy></Acct>
${balance('OPBD', opening)}
${balance('CLBD', closing)}
${entries(paid, utrs, now)}
    </Stmt>
  </BkToCstmrStmt>
</Document>
`;
}

async function writeAtomic(dir: string, name: string, text: string): Promise<void> {
  const temp = join(dir, `.${name}.part`);
  await writeFile(temp, text);
  await rename(temp, join(dir, name));
}

/** Answers every pain.001 in DIR/outbox/ not answered yet; answers what it did. */
export async function simulateOnce(dir: string, options: SimulatorOptions = {}): Promise<Answered[]> {
  const now = options.now ?? nowDate;
  for (const folder of ['outbox', 'inbox', 'processed', 'failed', '.bank-simulator']) {
    await mkdir(join(dir, folder), { recursive: true });
  }
  const marks = join(dir, '.bank-simulator');
  const done = new Set(await readdir(marks));
  const balanceFile = join(marks, 'balance');
  let balance = OPENING_BALANCE;
  const stored = await readFile(balanceFile, 'utf8').catch(() => '');
  if (/^\d+$/.test(stored.trim())) balance = BigInt(stored.trim());
  const answered: Answered[] = [];
  for (const file of (await readdir(join(dir, 'outbox'))).sort()) {
    if (!/^PAYRAIL-[A-Za-z0-9-]+\.xml$/.test(file) || done.has(`${file}.answered`)) continue;
    let read: ReturnType<typeof readPain001>;
    try {
      read = readPain001(await readFile(join(dir, 'outbox', file), 'utf8'));
    } catch (err) {
      // Not a file it can answer: said once, never again.
      await writeFile(join(marks, `${file}.answered`), `unreadable: ${(err as Error).message}\n`);
      answered.push({
        file,
        msgId: '',
        accepted: 0,
        rejected: 0,
        pending: 0,
        written: [],
        error: (err as Error).message,
      });
      continue;
    }
    const { msgId, debtorAccount, payments } = read;
    const at = now();
    const paid = payments.filter((p) => statusOf(p) === 'ACCP');
    const utrs = new Map(paid.map((p) => [p.endToEndId, newUtr()]));
    const written = [`PAIN002-${msgId}.xml`];
    await writeAtomic(join(dir, 'inbox'), written[0] as string, writePain002(msgId, payments, at));
    if (paid.length) {
      written.push(`CAMT054-${msgId}.xml`);
      await writeAtomic(join(dir, 'inbox'), `CAMT054-${msgId}.xml`, writeCamt054(msgId, debtorAccount, paid, utrs, at));
    }
    if (options.statement) {
      written.push(`CAMT053-${msgId}.xml`);
      const text = writeCamt053(msgId, debtorAccount, balance, paid, utrs, at);
      await writeAtomic(join(dir, 'inbox'), `CAMT053-${msgId}.xml`, text);
      balance -= paid.reduce((sum, p) => sum + p.paise, 0n);
      await writeFile(balanceFile, `${balance}\n`);
    }
    await writeFile(join(marks, `${file}.answered`), `${at.toISOString()}\n`);
    answered.push({
      file,
      msgId,
      accepted: paid.length,
      rejected: payments.filter((p) => statusOf(p) === 'RJCT').length,
      pending: payments.filter((p) => statusOf(p) === 'PDNG').length,
      written,
    });
  }
  return answered;
}

/** A credit to a virtual account, as `payrail bank simulate deposit` makes the bank report it. */
export interface SimulatedDeposit {
  virtualAccount: string;
  /** Rupees as text: "1500" or "1500.50". */
  amount: string;
  /** The bank's reference (ClrSysRef); generated when not given. */
  utr?: string;
  remitterName?: string;
  remitterAccount?: string;
  remitterIfsc?: string;
  now?: () => Date;
}

/** What is wrong with a deposit to simulate, or null. Checked before anything is written. */
export function depositProblem(d: SimulatedDeposit): string | null {
  if (!/^[0-9]{1,40}$/.test(d.virtualAccount)) return '--virtual-account must be the account number (digits)';
  if (!/^[0-9]{1,13}(?:\.[0-9]{1,2})?$/.test(d.amount) || toPaise(d.amount) === 0n) {
    return '--amount must be rupees above zero with at most two decimals, like 1500 or 1500.50';
  }
  if (d.utr !== undefined && !/^[0-9A-Za-z]{1,35}$/.test(d.utr)) return '--utr must be 1 to 35 letters or digits';
  if (d.remitterAccount !== undefined && !/^[0-9A-Za-z]{1,34}$/.test(d.remitterAccount)) {
    return '--remitter-account must be 1 to 34 letters or digits';
  }
  if (d.remitterIfsc !== undefined && !/^[A-Za-z]{4}0[A-Za-z0-9]{6}$/.test(d.remitterIfsc)) {
    return '--remitter-ifsc must be an IFSC like HDFC0001234';
  }
  if (d.remitterName !== undefined && (d.remitterName.trim() === '' || d.remitterName.length > 140)) {
    return '--remitter-name must be 1 to 140 characters';
  }
  return null;
}

/**
 * The camt.054 a collection bank sends for a credit to a virtual account: one booked CRDT entry, the virtual account
 * as the creditor account (RltdPties/CdtrAcct), the UTR as ClrSysRef, the remitter as Dbtr, DbtrAcct and DbtrAgt.
 */
export function writeDepositCamt054(d: SimulatedDeposit & { utr: string }, now: Date): string {
  const amount = formatPaise(toPaise(d.amount));
  const debtor =
    (d.remitterName ? `<Dbtr><Pty><Nm>${esc(d.remitterName)}</Nm></Pty></Dbtr>` : '') +
    (d.remitterAccount ? `<DbtrAcct><Id><Othr><Id>${esc(d.remitterAccount)}</Id></Othr></Id></DbtrAcct>` : '');
  const agent = d.remitterIfsc
    ? `
            <RltdAgts><DbtrAgt><FinInstnId><ClrSysMmbId><MmbId>${esc(d.remitterIfsc.toUpperCase())}</MmbId></ClrSysMmbId></FinInstnId></DbtrAgt></RltdAgts>`
    : '';
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08">
  <BkToCstmrDbtCdtNtfctn>
    <GrpHdr>
      <MsgId>SIMD-${esc(d.utr)}</MsgId>
      <CreDtTm>${istDateTime(now)}</CreDtTm>
    </GrpHdr>
    <Ntfctn>
      <Id>SIMD-${esc(d.utr)}</Id>
      <CreDtTm>${istDateTime(now)}</CreDtTm>
      <Acct><Id><Othr><Id>SIMULATED-COLLECTIONS</Id></Othr></Id></Acct>
      <Ntry>
        <Amt Ccy="INR">${amount}</Amt>
        <CdtDbtInd>CRDT</CdtDbtInd>
        <Sts><Cd>BOOK</Cd></Sts>
        <BookgDt><Dt>${istDay(now)}</Dt></BookgDt>
        <ValDt><Dt>${istDay(now)}</Dt></ValDt>
        <AcctSvcrRef>SIM${esc(d.utr)}</AcctSvcrRef>
        <BkTxCd><Prtry><Cd>NEFT-CR</Cd></Prtry></BkTxCd>
        <NtryDtls>
          <TxDtls>
            <Refs>
              <EndToEndId>NOTPROVIDED</EndToEndId>
              <ClrSysRef>${esc(d.utr)}</ClrSysRef>
            </Refs>
            <Amt Ccy="INR">${amount}</Amt>
            <CdtDbtInd>CRDT</CdtDbtInd>
            <RltdPties>${debtor}<CdtrAcct><Id><Othr><Id>${esc(d.virtualAccount)}</Id></Othr></Id></CdtrAcct></RltdPties>${agent}
            <RmtInf><Ustrd>Transfer to ${esc(d.virtualAccount)}</Ustrd></RmtInf>
          </TxDtls>
        </NtryDtls>
      </Ntry>
    </Ntfctn>
  </BkToCstmrDbtCdtNtfctn>
</Document>
`;
}

/**
 * Writes a camt.054 crediting `d.virtualAccount` into DIR/inbox/, as the collection bank would: the bank-file inbox
 * then credits the deposit (or opens its exception), the whole file path tried. Throws with what is wrong with `d`.
 */
export async function simulateDeposit(
  dir: string,
  d: SimulatedDeposit,
): Promise<{ file: string; utr: string; amount: string; virtualAccount: string }> {
  const problem = depositProblem(d);
  if (problem) throw new Error(problem);
  await mkdir(join(dir, 'inbox'), { recursive: true });
  const utr = d.utr ?? `SIM${newUtr()}`;
  const file = `CAMT054-DEP-${utr}.xml`;
  await writeAtomic(join(dir, 'inbox'), file, writeDepositCamt054({ ...d, utr }, (d.now ?? nowDate)()));
  return { file, utr, amount: formatPaise(toPaise(d.amount)), virtualAccount: d.virtualAccount };
}
