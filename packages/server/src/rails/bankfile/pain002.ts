import { BankFileUnreadable, children, isNode, readIsoMessage, text, texts, type XmlNode } from './xmlRead.ts';

export const PAIN002_NAME = 'pain.002.001.11';

/** A transfer's status in a status report (ExternalPaymentTransactionStatus1Code). */
export interface TransactionStatus {
  endToEndId: string;
  /** RJCT, PDNG, ACCP, ACTC, ACSP, ACSC, … */
  status: string;
  reasonCode: string | null;
  additionalInfo: string | null;
  /** The OrgnlPmtInfId of the block the status is given in, when the block names one. */
  originalPmtInfId: string | null;
}

export interface StatusReport {
  msgId: string;
  originalMsgId: string;
  /** GrpSts: RJCT rejects every payment of the original message. */
  groupStatus: string | null;
  groupReasonCode: string | null;
  groupAdditionalInfo: string | null;
  /** PmtInfSts of each original payment information block that has one: RJCT rejects its payments. */
  paymentInfos: {
    originalPmtInfId: string;
    status: string;
    reasonCode: string | null;
    additionalInfo: string | null;
  }[];
  transactions: TransactionStatus[];
}

const STATUS_CODE = /^[A-Z]{4}$/;
const REASON_CODE = /^[A-Z0-9]{1,4}$/;

/** The first StsRsnInf's code (Rsn/Cd, else Rsn/Prtry) and its additional information. */
function reason(node: XmlNode, where: string): { code: string | null; info: string | null } {
  const first = children(node, 'StsRsnInf')[0];
  if (!first) return { code: null, info: null };
  const code = text(first, 'Rsn', 'Cd') ?? text(first, 'Rsn', 'Prtry');
  if (code !== null && !REASON_CODE.test(code) && text(first, 'Rsn', 'Cd') !== null) {
    throw new BankFileUnreadable(`${where}: "${code}" is not a reason code`);
  }
  const info = texts(first, 'AddtlInf').join(' ');
  return { code: code === null ? null : code.slice(0, 35), info: info ? info.slice(0, 210) : null };
}

/** Reads a pain.002.001.11 status report; BankFileUnreadable when it is not one, or breaks its schema. */
export function readPain002(bytes: Buffer): StatusReport {
  const message = readIsoMessage(bytes, [PAIN002_NAME]);
  const report = message.document.CstmrPmtStsRpt;
  if (!isNode(report)) throw new BankFileUnreadable('no CstmrPmtStsRpt element');
  const msgId = text(report, 'GrpHdr', 'MsgId');
  if (!msgId) throw new BankFileUnreadable('GrpHdr/MsgId is missing');
  const group = report.OrgnlGrpInfAndSts;
  if (!isNode(group)) throw new BankFileUnreadable('OrgnlGrpInfAndSts is missing');
  const originalMsgId = text(group, 'OrgnlMsgId');
  if (!originalMsgId) throw new BankFileUnreadable('OrgnlGrpInfAndSts/OrgnlMsgId is missing');
  const groupStatus = text(group, 'GrpSts');
  if (groupStatus !== null && !STATUS_CODE.test(groupStatus)) {
    throw new BankFileUnreadable(`GrpSts "${groupStatus}" is not a status code`);
  }
  const groupReason = reason(group, 'OrgnlGrpInfAndSts');
  const transactions: TransactionStatus[] = [];
  const paymentInfos: StatusReport['paymentInfos'] = [];
  for (const info of children(report, 'OrgnlPmtInfAndSts')) {
    const blockId = text(info, 'OrgnlPmtInfId');
    const infoStatus = text(info, 'PmtInfSts');
    if (infoStatus !== null) {
      const originalPmtInfId = text(info, 'OrgnlPmtInfId');
      if (!originalPmtInfId) throw new BankFileUnreadable('OrgnlPmtInfAndSts/OrgnlPmtInfId is missing');
      if (!STATUS_CODE.test(infoStatus)) throw new BankFileUnreadable(`PmtInfSts "${infoStatus}" is not a status code`);
      const r = reason(info, `OrgnlPmtInfAndSts ${originalPmtInfId}`);
      paymentInfos.push({ originalPmtInfId, status: infoStatus, reasonCode: r.code, additionalInfo: r.info });
    }
    for (const tx of children(info, 'TxInfAndSts')) {
      const where = `TxInfAndSts ${transactions.length + 1}`;
      const endToEndId = text(tx, 'OrgnlEndToEndId');
      const status = text(tx, 'TxSts');
      if (!endToEndId) throw new BankFileUnreadable(`${where}: OrgnlEndToEndId is missing`);
      if (!status || !STATUS_CODE.test(status)) {
        throw new BankFileUnreadable(`${where}: TxSts "${status ?? ''}" is not a status code`);
      }
      const r = reason(tx, where);
      transactions.push({ endToEndId, status, reasonCode: r.code, additionalInfo: r.info, originalPmtInfId: blockId });
    }
  }
  return {
    msgId,
    originalMsgId,
    groupStatus,
    groupReasonCode: groupReason.code,
    groupAdditionalInfo: groupReason.info,
    paymentInfos,
    transactions,
  };
}
