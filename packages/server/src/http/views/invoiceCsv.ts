import { formatPaise } from '@payrail/protocol';
import { istDateTime } from '../../domain/istPeriod.ts';
import type { Invoice } from '../../services/InvoiceService.ts';
import { csvText } from '../csv.ts';

/**
 * One invoice as CSV: a row per line (charges, then credits), each repeating the invoice's number, parties and
 * totals, so that a spreadsheet filters and sums lines without a second sheet.
 */
export function invoiceCsv(i: Invoice): string {
  const head = [
    'number',
    'issued_at',
    'month',
    'merchant_id',
    'supplier_gstin',
    'recipient_legal_name',
    'recipient_gstin',
    'place_of_supply',
    'sac',
    'kind',
    'product',
    'count',
    'fees',
    'tax',
    'invoice_taxable',
    'invoice_cgst',
    'invoice_sgst',
    'invoice_igst',
    'invoice_total',
  ];
  return csvText([
    head,
    ...i.lines.map((l) => [
      i.number,
      istDateTime(i.issuedAt),
      i.month,
      i.merchantId,
      i.supplier.gstin,
      i.recipient.legalName,
      i.recipient.gstin,
      i.recipient.state,
      i.sac,
      l.kind,
      l.product,
      l.count,
      formatPaise(l.fees),
      formatPaise(l.tax),
      formatPaise(i.taxable),
      formatPaise(i.cgst),
      formatPaise(i.sgst),
      formatPaise(i.igst),
      formatPaise(i.total),
    ]),
  ]);
}
