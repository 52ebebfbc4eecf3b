// The columns of an invoice list, as the operator's and the merchant's Invoices pages show them.
import { html, rupees, when } from '../lib.js';
import { InvoiceDownloads, invoiceTax, lineText } from './InvoiceFacts.js';

/**
 * Number (opening the invoice at `hrefOf(i)`), month, [merchant,] lines, taxable value, GST, total, issued, and the
 * PDF and CSV downloads from `urlOf(i)`; the merchant column when `merchantCell` renders it (operators only).
 */
export const invoiceColumns = (hrefOf, urlOf, merchantCell) => [
  { label: 'Number', render: (i) => html`<a href=${hrefOf(i)}>${i.number}</a>` },
  { label: 'Month', render: (i) => i.month },
  ...(merchantCell ? [{ label: 'Merchant', id: true, render: merchantCell }] : []),
  { label: 'Lines', render: (i) => html`<span class="invoice-lines">${i.lines.map(lineText).join('; ')}</span>` },
  { label: 'Taxable', num: true, render: (i) => rupees(i.taxable) },
  { label: 'GST', num: true, render: (i) => rupees(invoiceTax(i)) },
  { label: 'Total', num: true, render: (i) => rupees(i.total) },
  { label: 'Issued', render: (i) => when(i.issued_at) },
  { label: 'Download', render: (i) => html`<${InvoiceDownloads} url=${urlOf(i)} number=${i.number} />` },
];
