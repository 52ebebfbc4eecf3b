import { XMLParser } from 'fast-xml-parser';
import {
  distinct,
  isCalendarDate,
  MAX_STATEMENT_BYTES,
  MAX_STATEMENTS_PER_FILE,
  parseMinorUnits,
  periodFromBalances,
  StatementUnreadable,
  type BankStatement,
  type Direction,
  type StatementBalance,
  type StatementEntry,
  type StatementTransaction,
} from './bankStatement.ts';
import { BANK_XML_OPTIONS, decodeXmlText } from './xmlRead.ts';

/** The camt.053 versions Payrail reads: banks still send the old ones, and the namespace says which. */
export const CAMT053_VERSIONS = ['02', '03', '04', '05', '06', '07', '08'] as const;

const NAMESPACE =
  /xmlns(?::[A-Za-z_][\w.-]*)?\s*=\s*["']urn:iso:std:iso:20022:tech:xsd:([a-z]{4})\.(\d{3})\.001\.(\d{2})["']/;

/**
 * Every value stays text (amounts are parsed to bigint by us); attributes are kept (Ccy); no entity is expanded
 * (DOCTYPE is refused before parsing, and the five predefined entities and character references are decoded by
 * `decodeXmlText`, which cannot expand anything); namespace prefixes are dropped (the version is read from the
 * namespace itself, first). A repeated element comes back as an array, a single one as itself: `list` and `at`
 * below read both alike. No callback asks for the element's path (jPath: false), which saves a third of the time.
 */
const parser = new XMLParser({ ...BANK_XML_OPTIONS, jPath: false });

type Node = Record<string, unknown>;

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The child at a path of element names (the first of repeating ones). */
function at(node: unknown, ...path: string[]): unknown {
  let current = node;
  for (const name of path) {
    if (Array.isArray(current)) current = current[0];
    if (!isNode(current)) return undefined;
    current = current[name];
  }
  return Array.isArray(current) ? current[0] : current;
}

/** A leaf's text (decoded), or null when absent or empty. */
function text(node: unknown, ...path: string[]): string | null {
  const value = at(node, ...path);
  const raw =
    typeof value === 'string' ? value : isNode(value) && typeof value['#text'] === 'string' ? value['#text'] : null;
  if (raw === null || raw === '') return null;
  return decodeXmlText(raw);
}

function list(node: unknown, name: string): unknown[] {
  if (!isNode(node)) return [];
  const value = node[name];
  return Array.isArray(value) ? value : value === undefined ? [] : [value];
}

/** A date: Dt, or the date part of DtTm (the bank's own calendar day, as written). */
function dateOf(node: unknown, where: string): string | null {
  const value = text(node, 'Dt') ?? text(node, 'DtTm');
  if (value === null) return null;
  const day = value.slice(0, 10);
  if (!isCalendarDate(day))
    throw new StatementUnreadable(`${where}: ${JSON.stringify(value.slice(0, 40))} is not a date`);
  return day;
}

function amountOf(node: unknown, where: string): { amount: bigint; currency: string | null } {
  const value = text(node);
  if (value === null) throw new StatementUnreadable(`${where}: the amount (Amt) is missing`);
  const currency = isNode(node) && typeof node['@Ccy'] === 'string' ? node['@Ccy'] : null;
  try {
    return { amount: parseMinorUnits(value, '.'), currency };
  } catch (err) {
    throw err instanceof StatementUnreadable ? new StatementUnreadable(`${where}: ${err.message}`) : err;
  }
}

function directionOf(node: unknown, where: string): Direction {
  const indicator = text(node, 'CdtDbtInd');
  if (indicator === 'CRDT') return 'credit';
  if (indicator === 'DBIT') return 'debit';
  throw new StatementUnreadable(`${where}: CdtDbtInd must be CRDT or DBIT`);
}

function balanceOf(bal: unknown, where: string): StatementBalance {
  const type = text(bal, 'Tp', 'CdOrPrtry', 'Cd') ?? `PRTRY:${text(bal, 'Tp', 'CdOrPrtry', 'Prtry') ?? ''}`;
  const { amount, currency } = amountOf(at(bal, 'Amt'), `${where} (${type})`);
  const sign = directionOf(bal, `${where} (${type})`) === 'debit' ? -1n : 1n;
  return { type, amount: sign * amount, currency, date: dateOf(at(bal, 'Dt'), `${where} (${type}) date`) };
}

function transactionOf(
  tx: unknown,
  entryAmount: { amount: bigint; currency: string | null } | null,
  where: string,
): StatementTransaction {
  // TxDtls/Amt from version 04 on; AmtDtls/TxAmt/Amt in every version.
  const amtNode = at(tx, 'Amt') ?? at(tx, 'AmtDtls', 'TxAmt', 'Amt') ?? at(tx, 'AmtDtls', 'InstdAmt', 'Amt');
  const own = amtNode === undefined ? entryAmount : amountOf(amtNode, `${where} amount`);
  const endToEndId = text(tx, 'Refs', 'EndToEndId');
  const returned = at(tx, 'RtrInf');
  const ustrd = list(at(tx, 'RmtInf'), 'Ustrd')
    .map((u) => text(u))
    .filter((u): u is string => u !== null);
  const remittance = ustrd.length ? ustrd.join(' ') : null;
  const bankReference = text(tx, 'Refs', 'AcctSvcrRef');
  return {
    amount: own?.amount ?? null,
    currency: own?.currency ?? null,
    endToEndId: endToEndId === 'NOTPROVIDED' ? null : endToEndId,
    utrs: distinct([text(tx, 'Refs', 'ClrSysRef'), bankReference]),
    references: distinct([
      text(tx, 'Refs', 'TxId'),
      text(tx, 'Refs', 'InstrId'),
      text(tx, 'Refs', 'PmtInfId'),
      text(tx, 'Refs', 'MsgId'),
      text(tx, 'Refs', 'UETR'),
      remittance,
      text(tx, 'AddtlTxInf'),
    ]),
    bankReference,
    isReturn: returned !== undefined,
    returnReason: returned === undefined ? null : (text(returned, 'Rsn', 'Cd') ?? text(returned, 'Rsn', 'Prtry')),
    remittance,
    parties: {
      creditorAccount: accountId(at(tx, 'RltdPties', 'CdtrAcct')),
      // Version 08 names the debtor Dbtr/Pty/Nm, the older ones Dbtr/Nm.
      remitterName: text(tx, 'RltdPties', 'Dbtr', 'Pty', 'Nm') ?? text(tx, 'RltdPties', 'Dbtr', 'Nm'),
      remitterAccount: accountId(at(tx, 'RltdPties', 'DbtrAcct')),
      remitterIfsc: text(tx, 'RltdAgts', 'DbtrAgt', 'FinInstnId', 'ClrSysMmbId', 'MmbId'),
    },
  };
}

/** An account element's identifier: its IBAN, else its Othr/Id. */
function accountId(account: unknown): string | null {
  return text(account, 'Id', 'IBAN') ?? text(account, 'Id', 'Othr', 'Id');
}

function entryOf(ntry: unknown, index: number, where: string): StatementEntry {
  const { amount, currency } = amountOf(at(ntry, 'Amt'), `${where} amount`);
  const direction = directionOf(ntry, where);
  // Version 02 writes <Sts>BOOK</Sts>; later ones <Sts><Cd>BOOK</Cd></Sts> (or Prtry).
  const status = text(ntry, 'Sts') ?? text(ntry, 'Sts', 'Cd') ?? text(ntry, 'Sts', 'Prtry') ?? '';
  const reversal = ['true', '1'].includes(text(ntry, 'RvslInd') ?? '');
  const bankReference = text(ntry, 'AcctSvcrRef');
  const details = list(ntry, 'NtryDtls').flatMap((d) => list(d, 'TxDtls'));
  const single = details.length <= 1 ? { amount, currency } : null;
  let transactions = details.map((tx, i) => transactionOf(tx, single, `${where} TxDtls ${i + 1}`));
  if (transactions.length === 1) {
    // One transaction is the entry: the entry's own reference is its too.
    const [only] = transactions as [StatementTransaction];
    transactions = [
      { ...only, utrs: distinct([...only.utrs, bankReference]), bankReference: only.bankReference ?? bankReference },
    ];
  }
  if (transactions.length === 0) {
    const info = text(ntry, 'AddtlNtryInf');
    transactions = [
      {
        amount,
        currency,
        endToEndId: null,
        utrs: distinct([bankReference]),
        references: distinct([text(ntry, 'NtryRef'), info]),
        bankReference,
        isReturn: false,
        returnReason: null,
        remittance: info,
      },
    ];
  }
  return {
    index,
    direction,
    amount,
    currency,
    reversal,
    status,
    bookingDate: dateOf(at(ntry, 'BookgDt'), `${where} booking date`),
    valueDate: dateOf(at(ntry, 'ValDt'), `${where} value date`),
    bankReference,
    detailed: details.length > 0,
    transactions,
  };
}

function statementOf(stmt: unknown, version: string, position: number): BankStatement {
  const where = `statement ${position}`;
  const statementId = text(stmt, 'Id');
  if (!statementId) throw new StatementUnreadable(`${where}: the statement has no Id`);
  const account = text(stmt, 'Acct', 'Id', 'IBAN') ?? text(stmt, 'Acct', 'Id', 'Othr', 'Id');
  if (!account) throw new StatementUnreadable(`${where} (${statementId}): the account has no IBAN or Othr/Id`);
  const balances = list(stmt, 'Bal').map((b, i) => balanceOf(b, `${where} balance ${i + 1}`));
  const entries = list(stmt, 'Ntry').map((n, i) => entryOf(n, i + 1, `${where} entry ${i + 1}`));
  const period = at(stmt, 'FrToDt');
  const day = (name: string) => {
    const value = text(period, name);
    if (value === null) return null;
    const d = value.slice(0, 10);
    if (!isCalendarDate(d)) throw new StatementUnreadable(`${where}: FrToDt/${name} is not a date-time`);
    return d;
  };
  const fallback = periodFromBalances(balances);
  return {
    format: 'camt.053',
    version: `camt.053.001.${version}`,
    account,
    statementId,
    currency: text(stmt, 'Acct', 'Ccy') ?? balances[0]?.currency ?? null,
    periodFrom: day('FrDtTm') ?? fallback.from,
    periodTo: day('ToDtTm') ?? fallback.to,
    balances,
    entries,
  };
}

/** Refuses what must never reach the parser: DOCTYPE and ENTITY declarations (no entity can then be expanded). */
export function refuseDeclarations(xml: string): void {
  if (/<!DOCTYPE/i.test(xml) || /<!ENTITY/i.test(xml)) {
    throw new StatementUnreadable('DOCTYPE and ENTITY declarations are refused in statements');
  }
}

/**
 * Parses a camt.053 document (BkToCstmrStmt) of version 001.02 to 001.08 into its statements. The version comes
 * from the namespace; another ISO 20022 message (camt.052, camt.054, pain.…) is refused by name.
 */
export function parseCamt053(xml: string): BankStatement[] {
  if (xml.length > MAX_STATEMENT_BYTES) throw new StatementUnreadable('the document is too large');
  refuseDeclarations(xml);
  const ns = NAMESPACE.exec(xml);
  if (!ns) {
    throw new StatementUnreadable(
      'not a camt.053 document: no ISO 20022 namespace (urn:iso:std:iso:20022:tech:xsd:camt.053.001.xx)',
    );
  }
  const [, area, message, version] = ns as unknown as [string, string, string, string];
  const name = `${area}.${message}.001.${version}`;
  if (area !== 'camt' || message !== '053') {
    throw new StatementUnreadable(`${name} is not a bank-to-customer statement (camt.053)`);
  }
  if (!(CAMT053_VERSIONS as readonly string[]).includes(version)) {
    throw new StatementUnreadable(`${name} is not supported: Payrail reads camt.053.001.02 to camt.053.001.08`);
  }
  let doc: unknown;
  try {
    doc = parser.parse(xml, true);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new StatementUnreadable(`the XML is not well-formed: ${message.slice(0, 200)}`);
  }
  const root = at(doc, 'Document', 'BkToCstmrStmt');
  if (!isNode(root)) throw new StatementUnreadable('the document has no BkToCstmrStmt');
  const statements = list(root, 'Stmt');
  if (statements.length === 0) throw new StatementUnreadable('the document holds no statement (Stmt)');
  if (statements.length > MAX_STATEMENTS_PER_FILE) {
    throw new StatementUnreadable(`the document holds more than ${MAX_STATEMENTS_PER_FILE} statements`);
  }
  return statements.map((s, i) => statementOf(s, version, i + 1));
}
