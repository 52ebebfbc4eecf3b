import { istDayStart } from './istPeriod.ts';
import { PRICED_PRODUCTS, type PricedProduct } from './pricingPlan.ts';

/**
 * Monthly GST tax invoices for the fees Payrail charged a merchant (docs/operator/charging-merchants.md, "Tax
 * invoices"): their months, financial years and numbers, the ledger entries they read, and how lines and tax add
 * up. Pure; the run itself is set-based SQL (store/repositories/InvoiceRepository.ts).
 */

/** Services Accounting Code of the fees: 997158, "financial services … for a fee or commission" (payment services). */
export const SAC_CODE = '997158';

/** A payout's fee entries are of the product the payout was sent as: its payment mode (IMPS, NEFT, RTGS). */
export const PAYOUT_MODE = 'payout_mode';

/** What one kind of fee entry on a merchant's wallet is on an invoice. */
export interface FeeEntryKind {
  /** The line's product, or PAYOUT_MODE: the payout's `payment_mode`. */
  product: PricedProduct | typeof PAYOUT_MODE;
  /** The fee itself, or the GST charged on it. */
  part: 'fee' | 'gst';
  /** For a refund: the kind of the entry it gives back (same transaction and wallet). */
  refundOf?: string;
}

/**
 * Every ledger entry kind an invoice reads, on the merchant's side (negative: charged; positive: given back). A new
 * priced product is one line here per kind (e.g. `deposit_fee: { product: 'DEPOSIT', part: 'fee' }`). A refund is
 * matched to the entry it gives back by the entries' `payout_id` or `collection_id` (InvoiceRepository's run): a
 * refund kind of another product needs its key there too.
 */
export const FEE_ENTRY_KINDS: Readonly<Record<string, FeeEntryKind>> = {
  payout_fee: { product: PAYOUT_MODE, part: 'fee' },
  payout_fee_gst: { product: PAYOUT_MODE, part: 'gst' },
  payout_fee_refund: { product: PAYOUT_MODE, part: 'fee', refundOf: 'payout_fee' },
  payout_fee_gst_refund: { product: PAYOUT_MODE, part: 'gst', refundOf: 'payout_fee_gst' },
  collection_fee: { product: 'UPI_COLLECTION', part: 'fee' },
  collection_fee_gst: { product: 'UPI_COLLECTION', part: 'gst' },
  // Deposits are never refunded (a deposit credited stays credited), so no refund kind to match.
  deposit_fee: { product: 'DEPOSIT', part: 'fee' },
  deposit_fee_gst: { product: 'DEPOSIT', part: 'gst' },
};

/** The kind of the entry that gives `kind` back, if any (`payout_fee` → `payout_fee_refund`). */
export const refundKindOf = (kind: string): string | null =>
  Object.entries(FEE_ENTRY_KINDS).find(([, k]) => k.refundOf === kind)?.[0] ?? null;

/** A calendar month of India Standard Time and the instants it begins and ends (the next one begins). */
export interface InvoiceMonth {
  month: string;
  start: Date;
  end: Date;
}

/** "2026-11" as its IST bounds; null for text that is no such month. */
export function parseMonth(text: string): InvoiceMonth | null {
  const m = /^([0-9]{4})-(0[1-9]|1[0-2])$/.exec(text);
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const next = month === 12 ? `${year + 1}-01` : `${year}-${String(month + 1).padStart(2, '0')}`;
  const start = istDayStart(`${text}-01`);
  const end = istDayStart(`${next}-01`);
  return start && end ? { month: text, start, end } : null;
}

/** The Indian financial year (April to March) a month is in: "2026-11" and "2027-03" → "2026-27". */
export function financialYear(month: string): string {
  const year = Number(month.slice(0, 4));
  const first = Number(month.slice(5, 7)) >= 4 ? year : year - 1;
  return `${first}-${String((first + 1) % 100).padStart(2, '0')}`;
}

/** PAYRAIL_INVOICE_PREFIX: letters, digits and hyphens, as GST invoice numbers allow (with `/`, which we add). */
export const INVOICE_PREFIX = /^[A-Za-z0-9-]{1,10}$/;

/** `INV/2026-27/000001`: the prefix, the financial year and the number in its series (six digits at least). */
export const invoiceNumber = (prefix: string, year: string, sequence: number): string =>
  `${prefix}/${year}/${String(sequence).padStart(6, '0')}`;

/** One line of an invoice: a product's fees (`charge`) or the fees given back on it after an earlier invoice. */
export interface InvoiceLine {
  kind: 'charge' | 'credit';
  product: string;
  /** Transactions charged (a charge) or given their fee back (a credit). */
  count: number;
  /** Paise: positive for a charge, negative for a credit. */
  fees: bigint;
  /** The GST charged (or given back) with those fees, as the ledger holds it. */
  tax: bigint;
}

/** The tax of an invoice as it is shown: CGST and SGST within a state, IGST across states. */
export interface TaxSplit {
  cgst: bigint;
  sgst: bigint;
  igst: bigint;
}

/**
 * Splits the GST collected: within a state CGST is half of it rounded toward zero and SGST the rest (so an odd paisa
 * goes to SGST, and a credit mirrors its charge); across states all of it is IGST.
 */
export function splitTax(tax: bigint, intraState: boolean): TaxSplit {
  if (!intraState) return { cgst: 0n, sgst: 0n, igst: tax };
  const cgst = tax / 2n;
  return { cgst, sgst: tax - cgst, igst: 0n };
}

export interface InvoiceTotals extends TaxSplit {
  taxable: bigint;
  total: bigint;
}

/** The lines in the order an invoice lists them (charges, then credits, each by product) and its totals. */
export function composeInvoice(
  lines: readonly InvoiceLine[],
  intraState: boolean,
): { lines: InvoiceLine[]; totals: InvoiceTotals } {
  const rank = (l: InvoiceLine) => {
    const p = (PRICED_PRODUCTS as readonly string[]).indexOf(l.product);
    return (l.kind === 'credit' ? 100 : 0) + (p < 0 ? 99 : p);
  };
  const sorted = [...lines].sort((a, b) => rank(a) - rank(b) || a.product.localeCompare(b.product));
  const taxable = sorted.reduce((sum, l) => sum + l.fees, 0n);
  const tax = sorted.reduce((sum, l) => sum + l.tax, 0n);
  const split = splitTax(tax, intraState);
  return { lines: sorted, totals: { taxable, ...split, total: taxable + tax } };
}

/** A rate in hundredths of a percent as text: 1800 → "18", 1250 → "12.5", 900 → "9". */
export function percentText(bp: number): string {
  const whole = Math.trunc(bp / 100);
  const fraction = String(bp % 100)
    .padStart(2, '0')
    .replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : String(whole);
}

/** A party of an invoice as it was when the invoice was issued. */
export interface InvoiceParty {
  legalName: string;
  gstin: string | null;
  address: string | null;
  /** Two-digit GST state code. */
  state: string;
}
