import {
  distinct,
  isCalendarDate,
  MAX_STATEMENT_BYTES,
  MAX_STATEMENTS_PER_FILE,
  parseMinorUnits,
  periodFromBalances,
  StatementUnreadable,
  type BankStatement,
  type StatementBalance,
  type StatementEntry,
} from './bankStatement.ts';

/**
 * SWIFT MT940 customer statements: one or several messages (bare, or in SWIFT blocks {1:…}{2:…}{4:…-}), each
 * starting at :20:. Balance fields are mapped to the ISO 20022 types camt.053 uses, so that both formats
 * reconcile alike: :60F:/:60M: opening booked (OPBD/PRCD), :62F:/:62M: closing booked (CLBD), :64: closing
 * available (CLAV), :65: forward available (FWAV).
 */

interface Field {
  tag: string;
  value: string;
  line: number;
}

const BALANCE_TYPES: Record<string, string> = {
  '60F': 'OPBD',
  '60M': 'PRCD',
  '62F': 'CLBD',
  '62M': 'CLBD',
  '64': 'CLAV',
  '65': 'FWAV',
};

/**
 * :61: first line: value date, entry date, mark, funds code, amount, type, references (leniently long). As banks
 * write it: the entry date may be four spaces, an amount without decimals may lack its comma, and the type's code
 * may be padded with spaces.
 */
const STATEMENT_LINE = /^(\d{6})(\d{4}| {4})?(RC|RD|C|D)([A-Z])?(\d{1,15}(?:,\d{0,5})?)([NSF][A-Z0-9 ]{3})(.*)$/;
/** A balance; its amount may be zero-padded past 15 digits. */
const BALANCE = /^([CD])(\d{6})([A-Z]{3})0*(\d{1,15},\d{0,5})$/;
/**
 * Lines some banks' exports put before the first field, read as nothing: a BIC, `940` or `940 00`, `:940:`, a
 * `0000 01…` file header. Any other text there is refused.
 */
const HEADER_LINE = /^(?:[A-Z]{6}[A-Z0-9]{2}(?:[A-Z0-9]{3})?|940(?: 00)?|:940:|0000 [A-Z0-9]{1,30})$/;

/** YYMMDD: years 80–99 are 19xx, the rest 20xx (the usual SWIFT reading). */
function yymmdd(value: string, where: string): string {
  const yy = Number(value.slice(0, 2));
  const date = `${yy >= 80 ? 19 : 20}${value.slice(0, 2)}-${value.slice(2, 4)}-${value.slice(4, 6)}`;
  if (!isCalendarDate(date)) throw new StatementUnreadable(`${where}: ${value} is not a date (YYMMDD)`);
  return date;
}

/** The entry date MMDD, in the year that puts it nearest the value date (a booking across New Year). */
function entryDate(mmdd: string, valueDate: string, where: string): string {
  let year = Number(valueDate.slice(0, 4));
  const month = Number(mmdd.slice(0, 2));
  const valueMonth = Number(valueDate.slice(5, 7));
  if (month - valueMonth > 6) year -= 1;
  else if (valueMonth - month > 6) year += 1;
  const date = `${year}-${mmdd.slice(0, 2)}-${mmdd.slice(2, 4)}`;
  if (!isCalendarDate(date)) throw new StatementUnreadable(`${where}: entry date ${mmdd} is not a date (MMDD)`);
  return date;
}

function amount(value: string, where: string): bigint {
  try {
    return parseMinorUnits(value, ',');
  } catch (err) {
    throw err instanceof StatementUnreadable ? new StatementUnreadable(`${where}: ${err.message}`) : err;
  }
}

/** The text of block 4 of each SWIFT message, or the whole text when it has no blocks. */
function messageTexts(text: string): string[] {
  if (!/\{4:/.test(text)) return [text];
  const blocks = [...text.matchAll(/\{4:([\s\S]*?)\n?-\}/g)].map((m) => m[1] as string);
  if (blocks.length === 0) throw new StatementUnreadable('a SWIFT block 4 ({4:) is not closed by -}');
  return blocks;
}

/** Fields, each with its continuation lines (a line that does not start a tag continues the field before it). */
function fieldsOf(text: string, firstLine: number): Field[] {
  const fields: Field[] = [];
  const lines = text.split('\n');
  // Before the first field, or after a message's closing `-`: where a bank's header lines may come.
  let between = true;
  lines.forEach((raw, i) => {
    const line = raw.replace(/\s+$/, '');
    const tag = /^:(\d{2}[A-Z]?):(.*)$/.exec(line);
    if (tag) {
      fields.push({ tag: tag[1] as string, value: tag[2] as string, line: firstLine + i });
      between = false;
      return;
    }
    if (line === '-') between = true;
    if (line === '' || line === '-') return;
    if (between && HEADER_LINE.test(line.trim())) return;
    const last = fields[fields.length - 1];
    if (!last) throw new StatementUnreadable(`line ${firstLine + i}: text before the first field (:20:)`);
    last.value += `\n${line}`;
  });
  return fields;
}

function balanceOf(field: Field): StatementBalance {
  const where = `:${field.tag}: (line ${field.line})`;
  const m = BALANCE.exec(field.value.trim());
  if (!m)
    throw new StatementUnreadable(`${where}: expected C or D, YYMMDD, currency and amount (e.g. C260301INR1000,00)`);
  const [, mark, date, currency, value] = m as unknown as [string, string, string, string, string];
  const paise = amount(value, where);
  return {
    type: BALANCE_TYPES[field.tag] as string,
    amount: mark === 'D' ? -paise : paise,
    currency,
    date: yymmdd(date, where),
  };
}

/** A UTR the bank wrote into :86: (UTR:…, UTR NO …, /UTR/…). */
const UTR_IN_TEXT = /(?:^|[^A-Za-z0-9])UTR(?:\s*NO)?[\s:./#-]*([A-Za-z0-9]{6,40})/i;
const EREF_IN_TEXT = /(?:\/EREF\/|EREF\+)([^\s/]{1,40})/;
const RTRN_IN_TEXT = /\/RTRN\/([A-Za-z0-9]{1,8})/;

function entryOf(line: Field, info: Field | null, index: number, currency: string | null): StatementEntry {
  const where = `:61: (line ${line.line})`;
  const [first = '', ...more] = line.value.split('\n');
  const m = STATEMENT_LINE.exec(first.trim());
  if (!m) {
    throw new StatementUnreadable(
      `${where}: expected value date YYMMDD, optional entry date MMDD, C/D/RC/RD, amount, type and reference`,
    );
  }
  const [, valueRaw, entryRaw, mark, , amountRaw, type, refs] = m as unknown as [
    string,
    string,
    string | undefined,
    string,
    string | undefined,
    string,
    string,
    string,
  ];
  const valueDate = yymmdd(valueRaw, where);
  const entryDay = entryRaw?.trim() ? entryRaw : undefined;
  const split = refs.indexOf('//');
  const customer = (split >= 0 ? refs.slice(0, split) : refs).trim();
  const bank = split >= 0 ? refs.slice(split + 2).trim() || null : null;
  const supplementary = more.join(' ').trim() || null;
  const details = info ? info.value.split('\n').join(' ').trim() || null : null;
  const customerRef = customer && customer !== 'NONREF' ? customer : null;
  const utr = details ? (UTR_IN_TEXT.exec(details)?.[1] ?? null) : null;
  const eref = details ? (EREF_IN_TEXT.exec(details)?.[1] ?? null) : null;
  const rtrn = details ? (RTRN_IN_TEXT.exec(details)?.[1] ?? null) : null;
  // The free text of :86: without the codes read above: a wallet credit's reference may be that text.
  const freeText = details
    ? details
        .replace(UTR_IN_TEXT, ' ')
        .replace(EREF_IN_TEXT, ' ')
        .replace(RTRN_IN_TEXT, ' ')
        .replace(/\s+/g, ' ')
        .trim() || null
    : null;
  const paise = amount(amountRaw.includes(',') ? amountRaw : `${amountRaw},`, where);
  // RC: reversal of a credit, booked as a debit; RD: reversal of a debit, booked as a credit.
  const direction = mark === 'C' || mark === 'RD' ? 'credit' : 'debit';
  const isReturn = type.slice(1) === 'RTI' || rtrn !== null;
  return {
    index,
    direction,
    amount: paise,
    currency,
    reversal: mark.startsWith('R'),
    status: 'BOOK',
    bookingDate: entryDay ? entryDate(entryDay, valueDate, where) : valueDate,
    valueDate,
    bankReference: bank,
    detailed: false,
    transactions: [
      {
        amount: paise,
        currency,
        // The customer reference is what Payrail sent as the payment's end-to-end id (the payout id).
        endToEndId: eref ?? customerRef,
        utrs: distinct([utr, bank]),
        references: distinct([customerRef, supplementary, freeText, details]),
        bankReference: bank,
        isReturn,
        returnReason: isReturn ? rtrn : null,
        remittance: details ?? supplementary,
      },
    ],
  };
}

function statementOf(fields: Field[]): BankStatement {
  const first = fields[0] as Field;
  const where = `statement at line ${first.line}`;
  const one = (tag: string) => fields.find((f) => f.tag === tag)?.value.trim() || null;
  const reference = one('20');
  if (!reference) throw new StatementUnreadable(`${where}: :20: (statement reference) is empty`);
  const account = one('25');
  if (!account) throw new StatementUnreadable(`${where}: :25: (account) is missing`);
  const sequence = one('28C') ?? one('28');
  const balances = fields.filter((f) => BALANCE_TYPES[f.tag]).map(balanceOf);
  const currency = balances[0]?.currency ?? null;
  const entries: StatementEntry[] = [];
  fields.forEach((f, i) => {
    if (f.tag !== '61') return;
    const next = fields[i + 1];
    entries.push(entryOf(f, next?.tag === '86' ? next : null, entries.length + 1, currency));
  });
  const period = periodFromBalances(balances);
  return {
    format: 'mt940',
    version: 'MT940',
    account,
    statementId: sequence ? `${reference}/${sequence}` : reference,
    currency,
    periodFrom: period.from,
    periodTo: period.to,
    balances,
    entries,
  };
}

/** Parses an MT940 file into its statements (one per :20:). */
export function parseMt940(input: string): BankStatement[] {
  if (input.length > MAX_STATEMENT_BYTES) throw new StatementUnreadable('the file is too large');
  // SOH and ETX: a transmission's framing around the messages, not their text.
  const text = input
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0001\u0003]/g, '');
  const statements: Field[][] = [];
  let line = 1;
  for (const message of messageTexts(text)) {
    for (const field of fieldsOf(message, line)) {
      if (field.tag === '20') statements.push([field]);
      else {
        const current = statements[statements.length - 1];
        if (!current) throw new StatementUnreadable(`line ${field.line}: :${field.tag}: before the first :20:`);
        current.push(field);
      }
    }
    line += message.split('\n').length;
  }
  if (statements.length === 0) throw new StatementUnreadable('not an MT940 statement: no :20: field');
  if (statements.length > MAX_STATEMENTS_PER_FILE) {
    throw new StatementUnreadable(`the file holds more than ${MAX_STATEMENTS_PER_FILE} statements`);
  }
  const read = statements.map(statementOf);
  // A bank may give the day's statements of an account the same reference and number (Rabobank's 940S…/0): told
  // apart by the date of their opening balance.
  const key = (s: BankStatement) => `${s.account}\n${s.statementId}`;
  const counts = new Map<string, number>();
  for (const s of read) counts.set(key(s), (counts.get(key(s)) ?? 0) + 1);
  return read.map((s) => {
    const opening = s.balances.find((b) => b.type === 'OPBD' || b.type === 'PRCD');
    return (counts.get(key(s)) ?? 0) > 1 && opening?.date
      ? { ...s, statementId: `${s.statementId}@${opening.date}` }
      : s;
  });
}
