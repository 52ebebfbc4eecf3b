import {
  attribute,
  BankFileUnreadable,
  child,
  children,
  isNode,
  parseRupees,
  readIsoMessage,
  text,
  texts,
} from './xmlRead.ts';

export const CAMT054_NAME = 'camt.054.001.08';

/** One transaction of a notification entry: what the inbox applies to a payout. */
export interface NotifiedTransaction {
  direction: 'CRDT' | 'DBIT';
  /** The entry's Sts/Cd: BOOK, PDNG, INFO. */
  entryStatus: string;
  /** Paise: the transaction's own amount, else the entry's (an entry of one transaction). */
  amount: bigint;
  currency: string;
  endToEndId: string | null;
  /** Refs/ClrSysRef: the UTR, when the bank gives it. */
  clearingReference: string | null;
  /** The entry's (or the transaction's) AcctSvcrRef. */
  accountServicerReference: string | null;
  /** RtrInf present: this credit is money sent back. */
  isReturn: boolean;
  returnReasonCode: string | null;
  returnAdditionalInfo: string | null;
}

export interface Notification {
  msgId: string;
  transactions: NotifiedTransaction[];
}

/** Reads a camt.054.001.08 notification; BankFileUnreadable when it is not one, or breaks its schema. */
export function readCamt054(bytes: Buffer): Notification {
  const message = readIsoMessage(bytes, [CAMT054_NAME]);
  const root = message.document.BkToCstmrDbtCdtNtfctn;
  if (!isNode(root)) throw new BankFileUnreadable('no BkToCstmrDbtCdtNtfctn element');
  const msgId = text(root, 'GrpHdr', 'MsgId');
  if (!msgId) throw new BankFileUnreadable('GrpHdr/MsgId is missing');
  const notifications = children(root, 'Ntfctn');
  if (notifications.length === 0) throw new BankFileUnreadable('no Ntfctn element');
  const transactions: NotifiedTransaction[] = [];
  let entryNumber = 0;
  for (const notification of notifications) {
    for (const entry of children(notification, 'Ntry')) {
      const where = `Ntry ${++entryNumber}`;
      const amount = parseRupees(text(entry, 'Amt'), `${where}/Amt`);
      const currency = attribute(entry, 'Ccy', 'Amt');
      if (!currency || !/^[A-Z]{3}$/.test(currency)) throw new BankFileUnreadable(`${where}/Amt has no currency`);
      const direction = text(entry, 'CdtDbtInd');
      if (direction !== 'CRDT' && direction !== 'DBIT') {
        throw new BankFileUnreadable(`${where}: CdtDbtInd "${direction ?? ''}" is neither CRDT nor DBIT`);
      }
      const entryStatus = text(entry, 'Sts', 'Cd') ?? text(entry, 'Sts');
      if (!entryStatus) throw new BankFileUnreadable(`${where}: Sts is missing`);
      const entryRef = text(entry, 'AcctSvcrRef');
      const details = children(entry, 'NtryDtls').flatMap((d) => children(d, 'TxDtls'));
      if (details.length === 0) {
        transactions.push({
          direction,
          entryStatus,
          amount,
          currency,
          endToEndId: null,
          clearingReference: null,
          accountServicerReference: entryRef,
          isReturn: false,
          returnReasonCode: null,
          returnAdditionalInfo: null,
        });
        continue;
      }
      for (const tx of details) {
        const own = child(tx, 'Amt') !== undefined ? parseRupees(text(tx, 'Amt'), `${where}/TxDtls/Amt`) : null;
        if (own === null && details.length > 1) {
          throw new BankFileUnreadable(`${where}: an entry of several transactions needs TxDtls/Amt on each`);
        }
        const returned = child(tx, 'RtrInf');
        transactions.push({
          direction: (text(tx, 'CdtDbtInd') as 'CRDT' | 'DBIT' | null) ?? direction,
          entryStatus,
          amount: own ?? amount,
          currency: attribute(tx, 'Ccy', 'Amt') ?? currency,
          endToEndId: text(tx, 'Refs', 'EndToEndId'),
          clearingReference: text(tx, 'Refs', 'ClrSysRef'),
          accountServicerReference: text(tx, 'Refs', 'AcctSvcrRef') ?? entryRef,
          isReturn: returned !== undefined,
          returnReasonCode:
            returned === undefined ? null : (text(returned, 'Rsn', 'Cd') ?? text(returned, 'Rsn', 'Prtry')),
          returnAdditionalInfo: returned === undefined ? null : texts(returned, 'AddtlInf').join(' ') || null,
        });
      }
    }
  }
  for (const t of transactions) {
    if (t.direction !== 'CRDT' && t.direction !== 'DBIT') {
      throw new BankFileUnreadable(`TxDtls/CdtDbtInd "${String(t.direction)}" is neither CRDT nor DBIT`);
    }
  }
  return { msgId, transactions };
}
