/**
 * Bank account statements as Payrail reads them, whatever the bank sent: camt.053 (ISO 20022 XML, versions
 * 001.02 to 001.08) or SWIFT MT940. Both parsers produce this one shape, so that reconciliation never depends on
 * the format (an MT940 and a camt.053 with the same entries reconcile alike).
 *
 * Amounts are integer minor units (paise for INR) as bigint: decimal text is parsed with a strict regular
 * expression, never through a JavaScript number.
 */

export type StatementFormat = 'camt.053' | 'mt940';
export type Direction = 'credit' | 'debit';

export interface StatementBalance {
  /** ISO 20022 balance type (OPBD, PRCD, OPAV, CLBD, CLAV, ITBD, FWAV, …); MT940 fields are mapped to these. */
  type: string;
  /** Signed minor units: negative for a debit (overdrawn) balance. */
  amount: bigint;
  currency: string | null;
  /** YYYY-MM-DD, as the bank wrote it. */
  date: string | null;
}

/** One transaction: a TxDtls of a camt.053 entry, or the whole entry when it gives no details (and MT940 :61:). */
export interface StatementTransaction {
  /** Minor units, unsigned (the entry's direction applies); null when a batched entry does not give it. */
  amount: bigint | null;
  currency: string | null;
  endToEndId: string | null;
  /** UTR candidates, most specific first (camt: ClrSysRef, then AcctSvcrRef; MT940: a UTR in :86:, then the bank reference). */
  utrs: string[];
  /** Every other reference the bank gives (TxId, InstrId, remittance text, …): a wallet credit's reference may be any. */
  references: string[];
  /** The account servicer's (bank's) own reference. */
  bankReference: string | null;
  /** Whether the bank reports this as a return (camt RtrInf; MT940 transaction type RTI or /RTRN/ in :86:). */
  isReturn: boolean;
  /** The return reason code (e.g. AC04), when given. */
  returnReason: string | null;
  /** Unstructured remittance information (camt RmtInf/Ustrd; MT940 :86:), for people. */
  remittance: string | null;
  /**
   * A camt credit's parties (RltdPties/CdtrAcct, Dbtr, DbtrAcct, RltdAgts/DbtrAgt's ClrSysMmbId), where a deposit to
   * a virtual account is read from (rails/bankfile/bankCredits.ts); MT940 gives none.
   */
  parties?: {
    creditorAccount: string | null;
    remitterName: string | null;
    remitterAccount: string | null;
    remitterIfsc: string | null;
  };
}

export interface StatementEntry {
  /** 1-based position in the statement. */
  index: number;
  direction: Direction;
  /** Unsigned minor units. */
  amount: bigint;
  currency: string | null;
  /** camt RvslInd; MT940 RC/RD. The direction is already the reversal booking's own. */
  reversal: boolean;
  /** BOOK, PDNG, INFO, …: only BOOK entries count. MT940 entries are all booked. */
  status: string;
  bookingDate: string | null;
  valueDate: string | null;
  bankReference: string | null;
  /** True when `transactions` are the entry's TxDtls; false when the entry gave none (then it is one transaction). */
  detailed: boolean;
  /** Never empty. */
  transactions: StatementTransaction[];
}

export interface BankStatement {
  format: StatementFormat;
  /** camt.053.001.02 … camt.053.001.08, or MT940. */
  version: string;
  /** IBAN or other account identifier (camt Acct/Id; MT940 :25:). */
  account: string;
  /** camt Stmt/Id; MT940 :20: (and :28C: when given). */
  statementId: string;
  currency: string | null;
  /** YYYY-MM-DD: camt FrToDt, else the opening and closing balances' dates. */
  periodFrom: string | null;
  periodTo: string | null;
  balances: StatementBalance[];
  entries: StatementEntry[];
}

/** Input that is not a statement Payrail can read: the message says what is wrong (HTTP 400). */
export class StatementUnreadable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StatementUnreadable';
  }
}

/** Larger documents are refused before any parsing (the HTTP route's own limit is lower). */
export const MAX_STATEMENT_BYTES = 50 * 1024 * 1024;
/** A statement file holding more statements than this is refused. */
export const MAX_STATEMENTS_PER_FILE = 1000;

/** Largest amount kept: 15 integer digits, like every amount Payrail takes (fits a bigint column with room). */
const DECIMAL_POINT = /^([0-9]{1,15})(?:\.([0-9]{1,5}))?$/;
const DECIMAL_COMMA = /^([0-9]{1,15}),([0-9]{0,5})$/;

/**
 * Parses an unsigned decimal amount to minor units (two fraction digits). camt writes `1234.56` (up to five
 * fraction digits by its schema), MT940 `1234,56` (the comma is mandatory, `1234,` is whole). Digits past the
 * second must be zeros: an amount Payrail cannot hold exactly is refused, never rounded.
 */
export function parseMinorUnits(text: string, separator: '.' | ','): bigint {
  const match = (separator === '.' ? DECIMAL_POINT : DECIMAL_COMMA).exec(text);
  if (!match) throw new StatementUnreadable(`amount ${JSON.stringify(text.slice(0, 40))} is not a decimal amount`);
  const whole = match[1] as string;
  const fraction = match[2] ?? '';
  if (/[1-9]/.test(fraction.slice(2))) {
    throw new StatementUnreadable(`amount ${text} has more than two decimals`);
  }
  return BigInt(whole) * 100n + BigInt(fraction.slice(0, 2).padEnd(2, '0'));
}

/** Days already checked: a statement's thousands of entries share a handful of dates. */
const checkedDays = new Map<string, boolean>();

/** A calendar date YYYY-MM-DD that exists (2026-02-30 does not). */
export function isCalendarDate(value: string): boolean {
  const known = checkedDays.get(value);
  if (known !== undefined) return known;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const at = new Date(`${value}T00:00:00Z`);
  const valid = !Number.isNaN(at.getTime()) && at.toISOString().slice(0, 10) === value;
  if (checkedDays.size >= 10_000) checkedDays.clear();
  checkedDays.set(value, valid);
  return valid;
}

/** Keeps the distinct non-empty values, in order. */
export function distinct(values: (string | null | undefined)[]): string[] {
  const out: string[] = [];
  for (const v of values) if (v && !out.includes(v)) out.push(v);
  return out;
}

/** The period a statement covers when it does not say: from the opening balance's date to the closing one's. */
export function periodFromBalances(balances: StatementBalance[]): { from: string | null; to: string | null } {
  const dateOf = (types: string[]) => {
    for (const type of types) {
      const found = balances.find((b) => b.type === type && b.date);
      if (found) return found.date;
    }
    return null;
  };
  return { from: dateOf(['OPBD', 'PRCD', 'OPAV']), to: dateOf(['CLBD', 'CLAV']) };
}
