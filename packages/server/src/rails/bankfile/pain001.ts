import { formatPaise, type PaymentMode } from '@payrail/protocol';
import { create } from 'xmlbuilder2';
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

/** One payout as a file carries it. */
export interface FilePayment {
  payoutId: string;
  /** Paise. */
  amount: bigint;
  paymentMode: PaymentMode;
  beneficiaryName: string;
  accountNumber: string;
  ifsc: string;
  remarks: string;
}

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

/** CreDtTm in IST with its offset, as the bank's operators read it. */
function istDateTime(at: Date): string {
  return `${new Date(at.getTime() + 19_800_000).toISOString().slice(0, 19)}+05:30`;
}

const MODE_ORDER: PaymentMode[] = ['NEFT', 'RTGS', 'IMPS'];

/**
 * Writes a pain.001.001.10 customer credit transfer initiation, valid against ISO 20022's XSD: one PmtInf per
 * payment mode, one CdtTrfTxInf per payout. Pure: the same input gives the same bytes. Amounts are written from
 * paise with two decimals; the sums are bigint, so the control sums are exact.
 */
export function writePain001(input: Pain001Input): string {
  if (input.payments.length === 0) throw new Error('a pain.001 holds at least one payment');
  const total = input.payments.reduce((sum, p) => sum + p.amount, 0n);
  const doc = create({ version: '1.0', encoding: 'UTF-8' }).ele(PAIN001_NAMESPACE, 'Document');
  const root = doc.ele('CstmrCdtTrfInitn');
  const header = root.ele('GrpHdr');
  header.ele('MsgId').txt(input.msgId);
  header.ele('CreDtTm').txt(istDateTime(input.createdAt));
  header.ele('NbOfTxs').txt(String(input.payments.length));
  header.ele('CtrlSum').txt(formatPaise(total));
  header.ele('InitgPty').ele('Nm').txt(cut(input.debtor.initiatingParty, 140));
  for (const mode of MODE_ORDER) {
    const payments = input.payments.filter((p) => p.paymentMode === mode);
    if (payments.length === 0) continue;
    const info = root.ele('PmtInf');
    info.ele('PmtInfId').txt(cut(`${input.msgId}-${mode}`, 35));
    info.ele('PmtMtd').txt('TRF');
    info.ele('NbOfTxs').txt(String(payments.length));
    info.ele('CtrlSum').txt(formatPaise(payments.reduce((sum, p) => sum + p.amount, 0n)));
    info.ele('PmtTpInf').ele('LclInstrm').ele('Prtry').txt(mode);
    info.ele('ReqdExctnDt').ele('Dt').txt(input.executionDate);
    info.ele('Dbtr').ele('Nm').txt(cut(input.debtor.name, 140));
    info.ele('DbtrAcct').ele('Id').ele('Othr').ele('Id').txt(input.debtor.account);
    clearingMember(info.ele('DbtrAgt'), input.debtor.ifsc);
    for (const p of payments) {
      const tx = info.ele('CdtTrfTxInf');
      const id = tx.ele('PmtId');
      id.ele('InstrId').txt(p.payoutId);
      id.ele('EndToEndId').txt(p.payoutId);
      tx.ele('Amt').ele('InstdAmt', { Ccy: 'INR' }).txt(formatPaise(p.amount));
      clearingMember(tx.ele('CdtrAgt'), p.ifsc);
      tx.ele('Cdtr').ele('Nm').txt(cut(p.beneficiaryName, 140));
      tx.ele('CdtrAcct').ele('Id').ele('Othr').ele('Id').txt(p.accountNumber);
      // Max140Text has a minimum length of 1: no remarks, no RmtInf.
      if (p.remarks !== '') tx.ele('RmtInf').ele('Ustrd').txt(cut(p.remarks, MAX_REMARKS));
    }
  }
  return doc.end({ prettyPrint: true });
}

function clearingMember(agent: ReturnType<ReturnType<typeof create>['ele']>, ifsc: string): void {
  const member = agent.ele('FinInstnId').ele('ClrSysMmbId');
  member.ele('ClrSysId').ele('Cd').txt(IFSC_CLEARING_SYSTEM);
  member.ele('MmbId').txt(ifsc);
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
