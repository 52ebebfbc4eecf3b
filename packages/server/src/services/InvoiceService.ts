import type { Clock } from '../clock.ts';
import { INVOICE_ID_PATTERN, newConsoleId } from '../domain/ids.ts';
import {
  composeInvoice,
  financialYear,
  parseMonth,
  SAC_CODE,
  type InvoiceLine,
  type InvoiceParty,
} from '../domain/invoice.ts';
import type { InvoiceSupplierSettings } from '../invoiceConfig.ts';
import type { Database } from '../store/Database.ts';
import {
  InvoiceRepository as Repo,
  type Invoice,
  type InvoicePageQuery,
  type NewInvoice,
} from '../store/repositories/InvoiceRepository.ts';
import { inScope, scopedQuery, type MerchantScope } from './MerchantScope.ts';

export type { Invoice };

/** The settings an invoice needs from the operator, by variable name, that are not set. */
export class InvoiceSettingsMissing extends Error {
  constructor(readonly missing: readonly string[]) {
    super(`invoices need ${missing.join(', ')}`);
    this.name = 'InvoiceSettingsMissing';
  }
}

/** A month that cannot be run: not a `YYYY-MM` month, or one that has not begun (IST). */
export class InvoiceMonthRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvoiceMonthRefused';
  }
}

export interface InvoiceTerms {
  supplier: InvoiceSupplierSettings;
  /** PAYRAIL_INVOICE_PREFIX. */
  prefix: string;
  /** PAYRAIL_GST_RATE in hundredths of a percent: the rate an invoice names. */
  gstRateBp: number;
}

export interface InvoiceRun {
  month: string;
  invoices: Invoice[];
  /** True when the month had been run before: these are the invoices that run issued, unchanged. */
  alreadyRun: boolean;
}

/**
 * How many ledger ids one statement of a run reads: a run of a month of a busy ledger is a series of short statements
 * (each well inside the database's statement timeout) in one transaction, never one long one.
 */
export const RUN_SLICE_IDS = 250_000n;

const SUPPLIER_VARIABLES: [keyof InvoiceSupplierSettings, string][] = [
  ['legalName', 'PAYRAIL_OPERATOR_LEGAL_NAME'],
  ['gstin', 'PAYRAIL_OPERATOR_GSTIN'],
  ['address', 'PAYRAIL_OPERATOR_ADDRESS'],
  ['state', 'PAYRAIL_OPERATOR_STATE'],
];

/**
 * Monthly GST tax invoices (docs/operator/charging-merchants.md, "Tax invoices"). A run of a month covers, for every
 * merchant at once, the fee entries charged before the month's end that no run covered, in the database (grouped by
 * merchant and product; entries are never loaded here), and issues one invoice per merchant with fees or credits,
 * numbered in the financial year's series. A month runs once: running it again answers what it issued.
 */
export class InvoiceService {
  constructor(
    private readonly db: Database,
    private readonly terms: InvoiceTerms,
    /** The composition root's clock: whether a month has begun, when an invoice is issued, invoice ids. */
    private readonly clock: Clock,
  ) {}

  /** The operator as the supplier, or InvoiceSettingsMissing naming what is not set. */
  private supplier(): InvoiceParty {
    const s = this.terms.supplier;
    const missing = SUPPLIER_VARIABLES.filter(([key]) => !s[key]).map(([, name]) => name);
    if (missing.length > 0) throw new InvoiceSettingsMissing(missing);
    return {
      legalName: s.legalName as string,
      gstin: s.gstin as string,
      address: s.address as string,
      state: s.state as string,
    };
  }

  /** Runs `month` ("2026-11"), or answers the invoices its earlier run issued. */
  async run(month: string): Promise<InvoiceRun> {
    const period = parseMonth(month);
    if (!period) throw new InvoiceMonthRefused('month must be a month like 2026-11');
    const supplier = this.supplier();
    if (this.clock() < period.start.getTime()) {
      throw new InvoiceMonthRefused(`${month} has not begun (India Standard Time): a month is run once it has begun`);
    }
    const year = financialYear(month);
    return this.db.transaction(async (tx) => {
      const start = await Repo.beginRun(tx, month);
      if (start.existing) return { month, invoices: await Repo.ofMonth(tx, month), alreadyRun: true };

      // Each merchant's lines, summed over the slices of the ledger the run reads.
      const lines = new Map<string, Map<string, InvoiceLine>>();
      let firstLaterId: bigint | null = null;
      for (let from = start.scanFrom; from <= start.lastId; from += RUN_SLICE_IDS) {
        const slice = await Repo.coverSlice(tx, month, period.end, from, from + RUN_SLICE_IDS);
        if (slice.firstLaterId !== null && (firstLaterId === null || slice.firstLaterId < firstLaterId)) {
          firstLaterId = slice.firstLaterId;
        }
        for (const g of slice.groups) {
          const ofMerchant = lines.get(g.merchantId) ?? new Map<string, InvoiceLine>();
          lines.set(g.merchantId, ofMerchant);
          const key = `${g.kind} ${g.product}`;
          const line = ofMerchant.get(key) ?? { kind: g.kind, product: g.product, count: 0, fees: 0n, tax: 0n };
          ofMerchant.set(key, {
            ...line,
            count: line.count + g.count,
            fees: line.fees + g.fees,
            tax: line.tax + g.tax,
          });
        }
      }

      // Where the next run starts: below it every fee entry is covered (InvoiceRepository.settledBelow).
      const settled = await Repo.settledBelow(tx, start.scanFrom);
      let nextScanFrom = settled === null ? start.scanFrom : settled + 1n;
      if (firstLaterId !== null && firstLaterId < nextScanFrom) nextScanFrom = firstLaterId;

      const issuedAt = new Date(this.clock());
      const drafts: NewInvoice[] = [];
      for (const party of await Repo.parties(tx, [...lines.keys()])) {
        const own = [...(lines.get(party.merchantId)?.values() ?? [])].filter(
          (l) => l.count > 0 || l.fees !== 0n || l.tax !== 0n,
        );
        // No fees and no credits: no invoice.
        if (own.length === 0) continue;
        // A merchant without a billing state is taken to be in the operator's.
        const recipient: InvoiceParty = {
          legalName: party.legalName ?? party.name,
          gstin: party.gstin,
          address: null,
          state: party.billingState ?? supplier.state,
        };
        const { lines: ordered, totals } = composeInvoice(own, recipient.state === supplier.state);
        drafts.push({
          id: newConsoleId('IV', this.clock()),
          financialYear: year,
          month,
          merchantId: party.merchantId,
          supplier,
          recipient,
          sac: SAC_CODE,
          gstRateBp: this.terms.gstRateBp,
          issuedAt,
          lines: ordered,
          ...totals,
        });
      }
      const invoices = await Repo.issue(
        tx,
        { month, runAt: issuedAt, scanFrom: start.scanFrom, nextScanFrom },
        drafts,
        this.terms.prefix,
        year,
      );
      return { month, invoices, alreadyRun: false };
    });
  }

  /** A page of invoices, newest first: a merchant's own only, with a scope. */
  page(query: InvoicePageQuery, scope?: MerchantScope): Promise<Invoice[]> {
    return Repo.page(this.db, scopedQuery(query, scope));
  }

  /** One invoice; null for none, a malformed id, or another merchant's (with a scope). */
  async get(id: string, scope?: MerchantScope): Promise<Invoice | null> {
    if (!INVOICE_ID_PATTERN.test(id)) return null;
    const invoice = await Repo.findById(this.db, id);
    return invoice && inScope(scope, invoice.merchantId) ? invoice : null;
  }
}
