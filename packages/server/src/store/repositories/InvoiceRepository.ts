import {
  FEE_ENTRY_KINDS,
  invoiceNumber,
  PAYOUT_MODE,
  refundKindOf,
  type InvoiceLine,
  type InvoiceParty,
  type InvoiceTotals,
} from '../../domain/invoice.ts';
import type { Queryable } from '../Database.ts';

/** An issued invoice as kept (migration 030): final, with its lines in order. */
export interface Invoice extends InvoiceTotals {
  id: string;
  number: string;
  financialYear: string;
  sequence: number;
  month: string;
  merchantId: string;
  supplier: InvoiceParty;
  recipient: InvoiceParty;
  sac: string;
  gstRateBp: number;
  issuedAt: Date;
  lines: InvoiceLine[];
}

/** An invoice to issue: numbered by `issue`, in the order given. */
export type NewInvoice = Omit<Invoice, 'number' | 'sequence'>;

/** What the run saw of one merchant, product and side (charges or credits) in a slice of the ledger. */
export interface CoveredGroup {
  merchantId: string;
  product: string;
  kind: 'charge' | 'credit';
  count: number;
  /** Paise charged (positive) or given back (negative). */
  fees: bigint;
  tax: bigint;
}

/** A slice of the ledger read by a run: the merchants' lines in it, and the first fee entry it left for later. */
export interface CoveredSlice {
  groups: CoveredGroup[];
  /** The smallest id of a fee entry charged from the month's end on (not covered), or null. */
  firstLaterId: bigint | null;
}

/** Where a run starts: the month's run if it has one, else where the ledger is to be read from and to. */
export type RunStart =
  | { existing: true }
  | {
      existing: false;
      /** The smallest ledger id not known to be covered (every fee entry below it is). */
      scanFrom: bigint;
      /** The largest ledger id this run can see. */
      lastId: bigint;
    };

export interface MerchantParty {
  merchantId: string;
  name: string;
  legalName: string | null;
  gstin: string | null;
  billingState: string | null;
}

export interface InvoicePageQuery {
  limit: number;
  /** The id of the last invoice of the previous page (newest first). */
  after?: string;
  merchantId?: string;
  month?: string;
}

interface InvoiceRow {
  id: string;
  number: string;
  financial_year: string;
  sequence: number;
  month: string;
  merchant_id: string;
  supplier_legal_name: string;
  supplier_gstin: string;
  supplier_address: string;
  supplier_state: string;
  recipient_legal_name: string;
  recipient_gstin: string | null;
  recipient_state: string;
  sac: string;
  gst_rate_bp: number;
  taxable: bigint;
  cgst: bigint;
  sgst: bigint;
  igst: bigint;
  total: bigint;
  issued_at: Date;
}

interface LineRow {
  invoice_id: string;
  kind: 'charge' | 'credit';
  product: string;
  count: number;
  fees: bigint;
  tax: bigint;
}

const toInvoice = (r: InvoiceRow, lines: InvoiceLine[]): Invoice => ({
  id: r.id,
  number: r.number,
  financialYear: r.financial_year,
  sequence: Number(r.sequence),
  month: r.month,
  merchantId: r.merchant_id,
  supplier: {
    legalName: r.supplier_legal_name,
    gstin: r.supplier_gstin,
    address: r.supplier_address,
    state: r.supplier_state,
  },
  recipient: { legalName: r.recipient_legal_name, gstin: r.recipient_gstin, address: null, state: r.recipient_state },
  sac: r.sac,
  gstRateBp: Number(r.gst_rate_bp),
  taxable: BigInt(r.taxable),
  cgst: BigInt(r.cgst),
  sgst: BigInt(r.sgst),
  igst: BigInt(r.igst),
  total: BigInt(r.total),
  issuedAt: r.issued_at,
  lines,
});

/** The invoices of these rows with their lines, in the rows' order. */
async function withLines(q: Queryable, rows: InvoiceRow[]): Promise<Invoice[]> {
  if (rows.length === 0) return [];
  const { rows: lines } = await q.query<LineRow>(
    `SELECT invoice_id, kind, product, count, fees, tax FROM invoice_lines
      WHERE invoice_id = ANY($1::text[]) ORDER BY invoice_id, position`,
    [rows.map((r) => r.id)],
  );
  const byInvoice = new Map<string, InvoiceLine[]>();
  for (const l of lines) {
    const list = byInvoice.get(l.invoice_id) ?? [];
    list.push({ kind: l.kind, product: l.product, count: Number(l.count), fees: BigInt(l.fees), tax: BigInt(l.tax) });
    byInvoice.set(l.invoice_id, list);
  }
  return rows.map((r) => toInvoice(r, byInvoice.get(r.id) ?? []));
}

/** FEE_ENTRY_KINDS as the columns of the run's statement (a VALUES of parameters). */
const KINDS = Object.entries(FEE_ENTRY_KINDS);
const KIND_PARAMS = [
  KINDS.map(([kind]) => kind),
  KINDS.map(([, k]) => k.product),
  KINDS.map(([, k]) => k.part),
  KINDS.map(([, k]) => k.refundOf ?? null),
  KINDS.map(([kind]) => refundKindOf(kind)),
];

/**
 * The sums of one slice of the ledger, ids [$1, $2), of a run for the month ending at $3 ($9): every merchant-side fee
 * entry not covered yet, per merchant, product and side; those charged from the month's end on only reported (their
 * smallest id), for the next run. Read before the slice is covered (COVER_SLICE), in the same snapshot.
 *
 * A fee and its refund that both fall in the run cancel out and are left off the invoice (both covered). So a charge
 * is left off when its refund was made before the month's end (a payout is REFUNDED in the transaction of its refund
 * entry, so only REFUNDED payouts are looked up), and a refund when the entry it gives back was not covered by an
 * earlier run (not at all yet, or by this run: it is in this slice or an earlier one); a refund of a fee an earlier
 * run covered is a credit.
 *
 * A payout's product and status are looked up by its key for the entries that need them (never a join of the whole
 * payouts table, which grows with every month), and the covered entries only in the slice's range of their index.
 */
const SLICE_SUMS = `
  WITH k (kind, product, part, refund_of, refund_kind) AS (
    SELECT * FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
  ),
  entries AS (
    SELECT e.id, e.amount, e.wallet_id, e.payout_id, e.collection_id, e.created_at >= $3 AS later, w.merchant_id,
           k.part, k.refund_of, k.refund_kind, p.status AS payout_status,
           CASE WHEN k.product = '${PAYOUT_MODE}' THEN p.payment_mode ELSE k.product END AS product
      FROM ledger_entries e
      JOIN k ON k.kind = e.kind
      JOIN wallets w ON w.id = e.wallet_id AND w.merchant_id IS NOT NULL
      -- OFFSET 0: looked up by key per entry, never flattened into a join that reads every payout.
      LEFT JOIN LATERAL (SELECT p.payment_mode, p.status FROM payouts p WHERE p.id = e.payout_id OFFSET 0) p ON true
     WHERE e.id >= $1 AND e.id < $2
       AND NOT EXISTS (SELECT 1 FROM invoice_entries c WHERE c.entry_id = e.id AND c.entry_id >= $1 AND c.entry_id < $2)
  ),
  judged AS (
    SELECT x.*, CASE
      WHEN x.later THEN false
      WHEN x.refund_of IS NULL THEN CASE
        WHEN x.refund_kind IS NULL THEN false
        WHEN x.payout_id IS NOT NULL THEN x.payout_status = 'REFUNDED' AND EXISTS (
          SELECT 1 FROM ledger_entries r
           WHERE r.payout_id = x.payout_id AND r.kind = x.refund_kind AND r.wallet_id = x.wallet_id
             AND r.created_at < $3)
        ELSE EXISTS (
          SELECT 1 FROM ledger_entries r
           WHERE r.collection_id = x.collection_id AND r.kind = x.refund_kind AND r.wallet_id = x.wallet_id
             AND r.created_at < $3)
        END
      WHEN x.payout_id IS NOT NULL THEN NOT EXISTS (
        SELECT 1 FROM ledger_entries o JOIN invoice_entries c ON c.entry_id = o.id
         WHERE o.payout_id = x.payout_id AND o.kind = x.refund_of AND o.wallet_id = x.wallet_id AND c.month <> $9)
      ELSE NOT EXISTS (
        SELECT 1 FROM ledger_entries o JOIN invoice_entries c ON c.entry_id = o.id
         WHERE o.collection_id = x.collection_id AND o.kind = x.refund_of AND o.wallet_id = x.wallet_id
           AND c.month <> $9)
      END AS cancelled
      FROM entries x
  )
  SELECT merchant_id, product, refund_of IS NOT NULL AS refund, later,
         (count(*) FILTER (WHERE part = 'fee'))::int4 AS count,
         (coalesce(-sum(amount) FILTER (WHERE part = 'fee'), 0))::int8 AS fees,
         (coalesce(-sum(amount) FILTER (WHERE part = 'gst'), 0))::int8 AS tax,
         min(id) AS first_id
    FROM judged
   WHERE NOT cancelled
   GROUP BY merchant_id, product, refund_of IS NOT NULL, later`;

/**
 * Covers the slice SLICE_SUMS has just summed: the same entries (merchant-side fee entries in ids [$1, $2) not covered
 * yet), those charged before the month's end ($3), for the month $4. Two statements rather than one with a
 * data-modifying CTE: the entries are then read twice from their index instead of materialised (measured: 10 % less
 * database CPU over a month of a million transactions).
 */
const COVER_SLICE = `
  INSERT INTO invoice_entries (entry_id, month)
  SELECT e.id, $4 FROM ledger_entries e
    JOIN wallets w ON w.id = e.wallet_id AND w.merchant_id IS NOT NULL
   WHERE e.id >= $1 AND e.id < $2 AND e.kind = ANY ($5::text[]) AND e.created_at < $3
     AND NOT EXISTS (SELECT 1 FROM invoice_entries c WHERE c.entry_id = e.id AND c.entry_id >= $1 AND c.entry_id < $2)`;

/**
 * Tax invoices: runs, their numbered series, the invoices and the fee entries they covered. All of it is written
 * once (a trigger refuses updates and deletes); the series only moves forward.
 */
export const InvoiceRepository = {
  /**
   * Opens a month's run in the transaction `q`: one snapshot for the whole run (REPEATABLE READ, before any other
   * statement), runs one at a time (the lock on invoice_runs, before the snapshot is taken, so that a run sees what
   * the one before it wrote), and where to read the ledger from. A month with a run answers `existing`.
   */
  async beginRun(q: Queryable, month: string): Promise<RunStart> {
    await q.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    await q.query('LOCK TABLE invoice_runs IN EXCLUSIVE MODE');
    // The slices' statements are costed high (a lookup per entry) but run in a second or so: compiling them (JIT)
    // took longer than running them; their sums are sorted in memory rather than on disk.
    await q.query(`SELECT set_config('jit', 'off', true), set_config('work_mem', '64MB', true)`);
    const { rows } = await q.query<{ existing: boolean; scan_from: bigint; last_id: bigint }>(
      `SELECT EXISTS (SELECT 1 FROM invoice_runs WHERE month = $1) AS existing,
              (SELECT coalesce(max(next_scan_from), 0) FROM invoice_runs)::int8 AS scan_from,
              (SELECT coalesce(max(id), 0) FROM ledger_entries)::int8 AS last_id`,
      [month],
    );
    const r = rows[0] as { existing: boolean; scan_from: bigint; last_id: bigint };
    if (r.existing) return { existing: true };
    return { existing: false, scanFrom: BigInt(r.scan_from), lastId: BigInt(r.last_id) };
  },

  /**
   * Sums and covers one slice of the ledger (ids `from` to `to`, exclusive) for `month`, ending at `end` (SLICE_SUMS,
   * then COVER_SLICE).
   */
  async coverSlice(q: Queryable, month: string, end: Date, from: bigint, to: bigint): Promise<CoveredSlice> {
    const { rows } = await q.query<{
      merchant_id: string;
      product: string | null;
      refund: boolean;
      later: boolean;
      count: number;
      fees: bigint;
      tax: bigint;
      first_id: bigint;
    }>(SLICE_SUMS, [String(from), String(to), end, ...KIND_PARAMS, month]);
    await q.query(COVER_SLICE, [String(from), String(to), end, month, KIND_PARAMS[0]]);
    let firstLaterId: bigint | null = null;
    const groups: CoveredGroup[] = [];
    for (const r of rows) {
      if (r.later) {
        const id = BigInt(r.first_id);
        if (firstLaterId === null || id < firstLaterId) firstLaterId = id;
        continue;
      }
      groups.push({
        merchantId: r.merchant_id,
        // A payout fee whose payout row is gone cannot happen (payouts are never deleted); named all the same.
        product: r.product ?? 'UNKNOWN',
        kind: r.refund ? 'credit' : 'charge',
        count: Number(r.count),
        fees: BigInt(r.fees),
        tax: BigInt(r.tax),
      });
    }
    return { groups, firstLaterId };
  },

  /**
   * The largest ledger id of an entry made more than two days before this transaction began (null: none at or
   * above `from`). An entry a later run could still see for the first time belongs to a transaction still open
   * now, which began (its entries' created_at) at most a day ago, so its id was drawn after every id this answers.
   */
  async settledBelow(q: Queryable, from: bigint): Promise<bigint | null> {
    const { rows } = await q.query<{ id: bigint | null }>(
      `SELECT max(id) AS id FROM ledger_entries WHERE id >= $1 AND created_at < now() - interval '2 days'`,
      [String(from)],
    );
    const id = rows[0]?.id;
    return id === null || id === undefined ? null : BigInt(id);
  },

  /** The recipients' data of these merchants, as it is now. */
  async parties(q: Queryable, merchantIds: readonly string[]): Promise<MerchantParty[]> {
    if (merchantIds.length === 0) return [];
    const { rows } = await q.query<{
      id: string;
      name: string;
      legal_name: string | null;
      gstin: string | null;
      billing_state: string | null;
    }>('SELECT id, name, legal_name, gstin, billing_state FROM merchants WHERE id = ANY($1::text[]) ORDER BY id', [
      merchantIds,
    ]);
    return rows.map((r) => ({
      merchantId: r.id,
      name: r.name,
      legalName: r.legal_name,
      gstin: r.gstin,
      billingState: r.billing_state,
    }));
  },

  /**
   * Records the run and issues its invoices, numbered in the order given from the financial year's series (the
   * run's lock makes the numbers consecutive; its transaction, gap-free). Answers them as kept.
   */
  async issue(
    q: Queryable,
    run: { month: string; runAt: Date; scanFrom: bigint; nextScanFrom: bigint },
    invoices: readonly NewInvoice[],
    prefix: string,
    financialYear: string,
  ): Promise<Invoice[]> {
    await q.query(
      `INSERT INTO invoice_runs (month, run_at, scan_from, next_scan_from, invoices) VALUES ($1, $2, $3, $4, $5)`,
      [run.month, run.runAt, String(run.scanFrom), String(run.nextScanFrom), invoices.length],
    );
    if (invoices.length === 0) return [];
    const { rows } = await q.query<{ last_number: number }>(
      `INSERT INTO invoice_series (financial_year, last_number) VALUES ($1, $2)
       ON CONFLICT (financial_year) DO UPDATE SET last_number = invoice_series.last_number + EXCLUDED.last_number
       RETURNING last_number`,
      [financialYear, invoices.length],
    );
    const first = Number(rows[0]?.last_number) - invoices.length + 1;
    const sequences = invoices.map((_, i) => first + i);
    const numbers = sequences.map((n) => invoiceNumber(prefix, financialYear, n));
    const col = <T>(f: (i: NewInvoice) => T) => invoices.map(f);
    await q.query(
      `INSERT INTO invoices (id, number, financial_year, sequence, month, merchant_id, supplier_legal_name,
         supplier_gstin, supplier_address, supplier_state, recipient_legal_name, recipient_gstin, recipient_state, sac,
         gst_rate_bp, taxable, cgst, sgst, igst, total, issued_at)
       SELECT u.id, u.number, $3, u.sequence, $4, u.merchant_id, $5, $6, $7, $8, u.recipient_legal_name,
              u.recipient_gstin, u.recipient_state, $9, $10, u.taxable, u.cgst, u.sgst, u.igst, u.total, $11
         FROM unnest($1::text[], $2::text[], $12::int4[], $13::text[], $14::text[], $15::text[], $16::text[],
                     $17::int8[], $18::int8[], $19::int8[], $20::int8[], $21::int8[])
           AS u (id, number, sequence, merchant_id, recipient_legal_name, recipient_gstin, recipient_state, taxable,
                 cgst, sgst, igst, total)`,
      [
        col((i) => i.id),
        numbers,
        financialYear,
        run.month,
        invoices[0]?.supplier.legalName,
        invoices[0]?.supplier.gstin,
        invoices[0]?.supplier.address,
        invoices[0]?.supplier.state,
        invoices[0]?.sac,
        invoices[0]?.gstRateBp,
        invoices[0]?.issuedAt,
        sequences,
        col((i) => i.merchantId),
        col((i) => i.recipient.legalName),
        col((i) => i.recipient.gstin),
        col((i) => i.recipient.state),
        col((i) => String(i.taxable)),
        col((i) => String(i.cgst)),
        col((i) => String(i.sgst)),
        col((i) => String(i.igst)),
        col((i) => String(i.total)),
      ],
    );
    const lines = invoices.flatMap((i) => i.lines.map((l, n) => ({ id: i.id, position: n + 1, ...l })));
    await q.query(
      `INSERT INTO invoice_lines (invoice_id, position, kind, product, count, fees, tax)
       SELECT * FROM unnest($1::text[], $2::int2[], $3::text[], $4::text[], $5::int4[], $6::int8[], $7::int8[])`,
      [
        lines.map((l) => l.id),
        lines.map((l) => l.position),
        lines.map((l) => l.kind),
        lines.map((l) => l.product),
        lines.map((l) => l.count),
        lines.map((l) => String(l.fees)),
        lines.map((l) => String(l.tax)),
      ],
    );
    return invoices.map((i, n) => ({ ...i, number: numbers[n] as string, sequence: sequences[n] as number }));
  },

  /** The invoices a month's run issued, in number order. */
  async ofMonth(q: Queryable, month: string): Promise<Invoice[]> {
    const { rows } = await q.query<InvoiceRow>('SELECT * FROM invoices WHERE month = $1 ORDER BY sequence', [month]);
    return withLines(q, rows);
  },

  async findById(q: Queryable, id: string): Promise<Invoice | null> {
    const { rows } = await q.query<InvoiceRow>('SELECT * FROM invoices WHERE id = $1', [id]);
    return (await withLines(q, rows))[0] ?? null;
  },

  /** Newest first, filtered; `limit` rows (the caller asks one more to know whether there is a next page). */
  async page(q: Queryable, query: InvoicePageQuery): Promise<Invoice[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (query.merchantId !== undefined) add('merchant_id = ?', query.merchantId);
    if (query.month !== undefined) add('month = ?', query.month);
    if (query.after !== undefined) add('id < ?', query.after);
    params.push(query.limit);
    const { rows } = await q.query<InvoiceRow>(
      `SELECT * FROM invoices ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY id DESC LIMIT $${params.length}`,
      params,
    );
    return withLines(q, rows);
  },
};
