import { formatPaise, type PaymentMode } from '@payrail/protocol';
import { istDateTime } from '../../domain/istPeriod.ts';
import type { Transfer } from '../BankConnector.ts';
import { BankFileUnreadable, children, isNode, parseRupees, readIsoMessage, text } from './xmlRead.ts';

export const PAIN001_NAMESPACE = 'urn:iso:std:iso:20022:tech:xsd:pain.001.001.10';
/** ISO 20022's clearing system code for India's IFSC (ExternalClearingSystemIdentification1Code). */
export const IFSC_CLEARING_SYSTEM = 'INFSC';
/** RmtInf/Ustrd is Max140Text. */
export const MAX_REMARKS = 140;

/** The account that pays, and who sends the files (PAYRAIL_BANKFILE_DEBTOR_*, PAYRAIL_BANKFILE_INITIATING_PARTY). */
export interface Debtor {
  name: string;
  account: string;
  ifsc: string;
  initiatingParty: string;
}

/** One payout as a file carries it: the fields of its Transfer (toTransfer) that a pain.001 holds. */
export type FilePayment = Pick<
  Transfer,
  'payoutId' | 'amount' | 'paymentMode' | 'beneficiaryName' | 'accountNumber' | 'ifsc' | 'remarks'
>;

export interface Pain001Input {
  msgId: string;
  createdAt: Date;
  /** The IST date the payments are to be executed (YYYY-MM-DD). */
  executionDate: string;
  debtor: Debtor;
  payments: FilePayment[];
}

/** The file name of a message: what the bank reads from the outbox. */
export const pain001FileName = (msgId: string) => `PAYRAIL-${msgId}.xml`;

/** Max140Text and friends count characters (code points), not UTF-16 units: a cut never splits a character. */
const cut = (value: string, max: number) => Array.from(value).slice(0, max).join('');

const MODE_ORDER: PaymentMode[] = ['NEFT', 'RTGS', 'IMPS'];

/** Characters XML 1.0 does not allow (controls but tab, LF, CR; lone surrogates; U+FFFE, U+FFFF): a space instead. */
const NOT_XML =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text content, escaped. */
const esc = (value: string) =>
  value.replace(NOT_XML, ' ').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The clearing member of an agent (DbtrAgt, CdtrAgt) at `indent`: the IFSC under India's clearing system code. */
const clearingMember = (indent: string, agent: string, ifsc: string) =>
  `\n${indent}<${agent}>\n${indent}  <FinInstnId>\n${indent}    <ClrSysMmbId>\n${indent}      <ClrSysId>\n` +
  `${indent}        <Cd>${IFSC_CLEARING_SYSTEM}</Cd>\n${indent}      </ClrSysId>\n${indent}      <MmbId>${esc(ifsc)}</MmbId>\n` +
  `${indent}    </ClrSysMmbId>\n${indent}  </FinInstnId>\n${indent}</${agent}>`;

/** One payout's CdtTrfTxInf, pretty-printed at the depth of a PmtInf's children. */
function transaction(p: FilePayment): string {
  const i = '      ';
  // Max140Text has a minimum length of 1: no remarks, no RmtInf.
  const remarks =
    p.remarks === ''
      ? ''
      : `\n${i}  <RmtInf>\n${i}    <Ustrd>${esc(cut(p.remarks, MAX_REMARKS))}</Ustrd>\n${i}  </RmtInf>`;
  return (
    `\n${i}<CdtTrfTxInf>\n${i}  <PmtId>\n${i}    <InstrId>${esc(p.payoutId)}</InstrId>\n` +
    `${i}    <EndToEndId>${esc(p.payoutId)}</EndToEndId>\n${i}  </PmtId>\n${i}  <Amt>\n` +
    `${i}    <InstdAmt Ccy="INR">${formatPaise(p.amount)}</InstdAmt>\n${i}  </Amt>` +
    clearingMember(`${i}  `, 'CdtrAgt', p.ifsc) +
    `\n${i}  <Cdtr>\n${i}    <Nm>${esc(cut(p.beneficiaryName, 140))}</Nm>\n${i}  </Cdtr>\n${i}  <CdtrAcct>\n` +
    `${i}    <Id>\n${i}      <Othr>\n${i}        <Id>${esc(p.accountNumber)}</Id>\n${i}      </Othr>\n${i}    </Id>\n` +
    `${i}  </CdtrAcct>${remarks}\n${i}</CdtTrfTxInf>`
  );
}

/**
 * Writes a pain.001.001.10 customer credit transfer initiation, valid against ISO 20022's XSD: one PmtInf per
 * payment mode, one CdtTrfTxInf per payout, pretty-printed (two spaces). Pure: the same input gives the same bytes.
 * Amounts are written from paise with two decimals; the sums are bigint, so the control sums are exact. Written as
 * strings, one per payment, not as a document tree: 10,000 payments take tens of milliseconds.
 */
export function writePain001(input: Pain001Input): string {
  if (input.payments.length === 0) throw new Error('a pain.001 holds at least one payment');
  const total = input.payments.reduce((sum, p) => sum + p.amount, 0n);
  const parts = [
    `<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="${PAIN001_NAMESPACE}">\n  <CstmrCdtTrfInitn>\n` +
      `    <GrpHdr>\n      <MsgId>${esc(input.msgId)}</MsgId>\n      <CreDtTm>${istDateTime(input.createdAt)}</CreDtTm>\n` +
      `      <NbOfTxs>${input.payments.length}</NbOfTxs>\n      <CtrlSum>${formatPaise(total)}</CtrlSum>\n` +
      `      <InitgPty>\n        <Nm>${esc(cut(input.debtor.initiatingParty, 140))}</Nm>\n      </InitgPty>\n    </GrpHdr>`,
  ];
  for (const mode of MODE_ORDER) {
    const payments = input.payments.filter((p) => p.paymentMode === mode);
    if (payments.length === 0) continue;
    const i = '      ';
    parts.push(
      `\n    <PmtInf>\n${i}<PmtInfId>${esc(cut(`${input.msgId}-${mode}`, 35))}</PmtInfId>\n${i}<PmtMtd>TRF</PmtMtd>\n` +
        `${i}<NbOfTxs>${payments.length}</NbOfTxs>\n` +
        `${i}<CtrlSum>${formatPaise(payments.reduce((sum, p) => sum + p.amount, 0n))}</CtrlSum>\n` +
        `${i}<PmtTpInf>\n${i}  <LclInstrm>\n${i}    <Prtry>${mode}</Prtry>\n${i}  </LclInstrm>\n${i}</PmtTpInf>\n` +
        `${i}<ReqdExctnDt>\n${i}  <Dt>${esc(input.executionDate)}</Dt>\n${i}</ReqdExctnDt>\n` +
        `${i}<Dbtr>\n${i}  <Nm>${esc(cut(input.debtor.name, 140))}</Nm>\n${i}</Dbtr>\n` +
        `${i}<DbtrAcct>\n${i}  <Id>\n${i}    <Othr>\n${i}      <Id>${esc(input.debtor.account)}</Id>\n${i}    </Othr>\n` +
        `${i}  </Id>\n${i}</DbtrAcct>` +
        clearingMember(i, 'DbtrAgt', input.debtor.ifsc),
    );
    for (const p of payments) parts.push(transaction(p));
    parts.push('\n    </PmtInf>');
  }
  parts.push('\n  </CstmrCdtTrfInitn>\n</Document>');
  return parts.join('');
}

/** A pain.001 read back (the tests' round trip, and what the bank sees): its header and its payments. */
export interface ReadPain001 {
  msgId: string;
  numberOfTransactions: number;
  controlSum: bigint;
  payments: FilePayment[];
}

/** Reads a pain.001.001.10 such as writePain001 writes. */
export function readPain001(bytes: Buffer): ReadPain001 {
  const message = readIsoMessage(bytes, ['pain.001.001.10']);
  const root = message.document.CstmrCdtTrfInitn;
  if (!isNode(root)) throw new BankFileUnreadable('no CstmrCdtTrfInitn element');
  const msgId = text(root, 'GrpHdr', 'MsgId');
  const count = text(root, 'GrpHdr', 'NbOfTxs');
  if (!msgId || !count || !/^\d{1,15}$/.test(count)) throw new BankFileUnreadable('GrpHdr is incomplete');
  const payments: FilePayment[] = [];
  for (const info of children(root, 'PmtInf')) {
    const mode = text(info, 'PmtTpInf', 'LclInstrm', 'Prtry');
    if (mode !== 'NEFT' && mode !== 'RTGS' && mode !== 'IMPS') throw new BankFileUnreadable('PmtInf without a mode');
    for (const tx of children(info, 'CdtTrfTxInf')) {
      payments.push({
        payoutId: text(tx, 'PmtId', 'EndToEndId') ?? '',
        amount: parseRupees(text(tx, 'Amt', 'InstdAmt'), 'InstdAmt'),
        paymentMode: mode,
        beneficiaryName: text(tx, 'Cdtr', 'Nm') ?? '',
        accountNumber: text(tx, 'CdtrAcct', 'Id', 'Othr', 'Id') ?? '',
        ifsc: text(tx, 'CdtrAgt', 'FinInstnId', 'ClrSysMmbId', 'MmbId') ?? '',
        remarks: text(tx, 'RmtInf', 'Ustrd') ?? '',
      });
    }
  }
  return {
    msgId,
    numberOfTransactions: Number(count),
    controlSum: parseRupees(text(root, 'GrpHdr', 'CtrlSum'), 'CtrlSum'),
    payments,
  };
}
