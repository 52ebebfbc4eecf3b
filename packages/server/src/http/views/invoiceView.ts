import { formatPaise } from '@payrail/protocol';
import { GST_STATES } from '../../domain/gstin.ts';
import { percentText, type InvoiceLine, type InvoiceParty } from '../../domain/invoice.ts';
import type { Invoice } from '../../services/InvoiceService.ts';

const partyView = (p: InvoiceParty) => ({
  legal_name: p.legalName,
  gstin: p.gstin,
  address: p.address,
  state: p.state,
  state_name: GST_STATES[p.state] ?? p.state,
});

/** A line as the API answers it: a credit line says so (`kind`), a charge line is the contract's three fields. */
const lineView = (l: InvoiceLine) => ({
  ...(l.kind === 'credit' ? { kind: 'credit' as const } : {}),
  product: l.product,
  count: l.count,
  fees: formatPaise(l.fees),
  tax: formatPaise(l.tax),
});

/** An invoice as the admin API and the merchant console answer it (JSON). */
export const invoiceView = (i: Invoice) => ({
  invoice_id: i.id,
  number: i.number,
  financial_year: i.financialYear,
  merchant_id: i.merchantId,
  month: i.month,
  supplier: partyView(i.supplier),
  recipient: partyView(i.recipient),
  place_of_supply: i.recipient.state,
  sac: i.sac,
  gst_rate: percentText(i.gstRateBp),
  lines: i.lines.map(lineView),
  taxable: formatPaise(i.taxable),
  cgst: formatPaise(i.cgst),
  sgst: formatPaise(i.sgst),
  igst: formatPaise(i.igst),
  total: formatPaise(i.total),
  issued_at: i.issuedAt.toISOString(),
});

/** The file name an invoice is downloaded as: its number with `/` as `-` (`INV-2026-27-000001.pdf`). */
export const invoiceFileName = (i: Invoice, extension: 'pdf' | 'csv') =>
  `${i.number.replaceAll('/', '-')}.${extension}`;
