/**
 * Bank statements for the reconciliation tests, written the way banks write them: camt.053 (version 02 with its
 * text status and AmtDtls, or 08 with Sts/Cd, TxDtls/Amt and date-times) and MT940. Amounts are rupees as text.
 */

export interface TestTransaction {
  amount?: string;
  e2e?: string;
  utr?: string;
  returnReason?: string;
  remittance?: string;
}

export interface TestEntry {
  direction: 'credit' | 'debit';
  amount: string;
  e2e?: string;
  utr?: string;
  /** The bank's own reference (camt AcctSvcrRef; MT940 after //). */
  bankRef?: string;
  valueDate?: string;
  bookingDate?: string;
  status?: 'BOOK' | 'PDNG' | 'INFO';
  returnReason?: string;
  remittance?: string;
  /** Several TxDtls in one entry (camt only). */
  batch?: TestTransaction[];
}

export interface TestStatement {
  account?: string;
  id?: string;
  date?: string;
  opening?: string;
  /** Default: what the booked entries make of the opening balance. */
  closing?: string;
  closingType?: 'CLBD' | 'CLAV';
  openingType?: 'OPBD' | 'PRCD' | 'OPAV';
  currency?: string;
  entries: TestEntry[];
}

export const paiseOf = (rupees: string): bigint => {
  const negative = rupees.startsWith('-');
  const [whole = '0', fraction = ''] = rupees.replace(/^-/, '').split('.');
  const paise = BigInt(whole) * 100n + BigInt(fraction.padEnd(2, '0'));
  return negative ? -paise : paise;
};

export const rupeesOf = (paise: bigint): string => {
  const abs = paise < 0n ? -paise : paise;
  return `${paise < 0n ? '-' : ''}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`;
};

const defaults = (s: TestStatement) => {
  const date = s.date ?? '2026-03-02';
  const opening = s.opening ?? '100000.00';
  let closing = paiseOf(opening);
  for (const e of s.entries) {
    if ((e.status ?? 'BOOK') !== 'BOOK') continue;
    closing += e.direction === 'credit' ? paiseOf(e.amount) : -paiseOf(e.amount);
  }
  return {
    account: s.account ?? '50100012345678',
    id: s.id ?? `STMT-${date}`,
    date,
    opening,
    closing: s.closing ?? rupeesOf(closing),
    currency: s.currency ?? 'INR',
  };
};

const esc = (v: string) => v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function camtBalance(type: string, amount: string, date: string, ccy: string) {
  const p = paiseOf(amount);
  return `<Bal><Tp><CdOrPrtry><Cd>${type}</Cd></CdOrPrtry></Tp><Amt Ccy="${ccy}">${rupeesOf(p < 0n ? -p : p)}</Amt><CdtDbtInd>${p < 0n ? 'DBIT' : 'CRDT'}</CdtDbtInd><Dt><Dt>${date}</Dt></Dt></Bal>`;
}

function camtTx(v: '02' | '08', t: TestTransaction, direction: string, ccy: string) {
  const refs = [
    t.e2e ? `<EndToEndId>${esc(t.e2e)}</EndToEndId>` : '<EndToEndId>NOTPROVIDED</EndToEndId>',
    t.utr ? `<ClrSysRef>${esc(t.utr)}</ClrSysRef>` : '',
  ].join('');
  const amount = t.amount
    ? v === '02'
      ? `<AmtDtls><TxAmt><Amt Ccy="${ccy}">${t.amount}</Amt></TxAmt></AmtDtls>`
      : `<Amt Ccy="${ccy}">${t.amount}</Amt><CdtDbtInd>${direction}</CdtDbtInd>`
    : '';
  const rmt = t.remittance ? `<RmtInf><Ustrd>${esc(t.remittance)}</Ustrd></RmtInf>` : '';
  const rtr = t.returnReason ? `<RtrInf><Rsn><Cd>${t.returnReason}</Cd></Rsn></RtrInf>` : '';
  return `<TxDtls><Refs>${refs}</Refs>${amount}${rmt}${rtr}</TxDtls>`;
}

/** A camt.053 document of version 001.02 or 001.08 holding the statement. */
export function camt053(s: TestStatement, v: '02' | '08' = '08'): string {
  const d = defaults(s);
  const ccy = d.currency;
  const entries = s.entries.map((e) => {
    const dir = e.direction === 'credit' ? 'CRDT' : 'DBIT';
    const status = e.status ?? 'BOOK';
    const sts = v === '02' ? `<Sts>${status}</Sts>` : `<Sts><Cd>${status}</Cd></Sts>`;
    const booking = e.bookingDate ?? d.date;
    const bookg =
      v === '02'
        ? `<BookgDt><Dt>${booking}</Dt></BookgDt>`
        : `<BookgDt><DtTm>${booking}T10:15:00+05:30</DtTm></BookgDt>`;
    const txs = e.batch ?? [
      { amount: e.amount, e2e: e.e2e, utr: e.utr, returnReason: e.returnReason, remittance: e.remittance },
    ];
    return (
      `<Ntry><Amt Ccy="${ccy}">${e.amount}</Amt><CdtDbtInd>${dir}</CdtDbtInd>${sts}${bookg}` +
      `<ValDt><Dt>${e.valueDate ?? d.date}</Dt></ValDt>` +
      (e.bankRef ? `<AcctSvcrRef>${esc(e.bankRef)}</AcctSvcrRef>` : '') +
      `<BkTxCd><Prtry><Cd>${e.direction === 'credit' ? 'NEFT-CR' : 'NEFT-DR'}</Cd></Prtry></BkTxCd>` +
      `<NtryDtls>${txs.map((t) => camtTx(v, t, dir, ccy)).join('')}</NtryDtls></Ntry>`
    );
  });
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.${v}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>MSG-${d.id}</MsgId><CreDtTm>${d.date}T23:30:00+05:30</CreDtTm></GrpHdr>
    <Stmt>
      <Id>${esc(d.id)}</Id>
      <CreDtTm>${d.date}T23:30:00+05:30</CreDtTm>
      <FrToDt><FrDtTm>${d.date}T00:00:00+05:30</FrDtTm><ToDtTm>${d.date}T23:59:59+05:30</ToDtTm></FrToDt>
      <Acct><Id><Othr><Id>${esc(d.account)}</Id></Othr></Id><Ccy>${ccy}</Ccy></Acct>
      ${camtBalance(s.openingType ?? 'OPBD', d.opening, d.date, ccy)}
      ${camtBalance(s.closingType ?? 'CLBD', d.closing, d.date, ccy)}
      ${entries.join('\n      ')}
    </Stmt>
  </BkToCstmrStmt>
</Document>
`;
}

const yymmdd = (date: string) => date.slice(2).replace(/-/g, '');
const mt940Amount = (rupees: string) => rupees.replace('-', '').replace('.', ',');

function mt940Balance(tag: string, amount: string, date: string, ccy: string) {
  return `:${tag}:${amount.startsWith('-') ? 'D' : 'C'}${yymmdd(date)}${ccy}${mt940Amount(amount)}`;
}

/** An MT940 message holding the statement (entries without batches; each entry one :61: and its :86:). */
export function mt940(s: TestStatement): string {
  const d = defaults(s);
  const lines = [
    '{1:F01PAYRINBBAXXX0000000000}{2:O9401200260302HDFCINBBAXXX00000000002603021200N}{4:',
    `:20:${d.id}`,
    `:25:${d.account}`,
    ':28C:00001/001',
    mt940Balance(s.openingType === 'PRCD' ? '60M' : '60F', d.opening, d.date, d.currency),
  ];
  for (const e of s.entries) {
    if (e.batch) throw new Error('MT940 has no batches');
    // MT940 reports booked entries only.
    if ((e.status ?? 'BOOK') !== 'BOOK') continue;
    const value = e.valueDate ?? d.date;
    const booking = (e.bookingDate ?? d.date).slice(5).replace('-', '');
    const mark = e.direction === 'credit' ? 'C' : 'D';
    const type = e.returnReason ? 'NRTI' : 'NTRF';
    lines.push(
      `:61:${yymmdd(value)}${booking}${mark}${mt940Amount(e.amount)}${type}${e.e2e ?? 'NONREF'}${e.bankRef ? `//${e.bankRef}` : ''}`,
    );
    const info = [e.utr ? `UTR:${e.utr}` : '', e.returnReason ? `/RTRN/${e.returnReason}` : '', e.remittance ?? '']
      .filter(Boolean)
      .join(' ');
    if (info) lines.push(`:86:${info}`);
  }
  lines.push(mt940Balance(s.closingType === 'CLAV' ? '64' : '62F', d.closing, d.date, d.currency));
  lines.push('-}');
  return `${lines.join('\r\n')}\r\n`;
}
