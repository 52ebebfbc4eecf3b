// One tax invoice, shared by the operator's and the merchant's invoice pages (docs/operator/charging-merchants.md,
// "Tax invoices"): both routes answer the same invoice (invoiceView), so the card is one; only its address differs.
import { html, rupees, sumMoney, Table, when } from '../lib.js';

/** The invoice's GST: CGST + SGST within a state, IGST across states (one of them is zero). */
export const invoiceTax = (i) => sumMoney([i.cgst, i.sgst, i.igst]);

/** One line as a list shows it: "IMPS 2 · ₹12.00", a credit line marked so. */
export const lineText = (l) => `${l.kind === 'credit' ? 'credit ' : ''}${l.product} ${l.count} · ${rupees(l.fees)}`;

/** PDF and CSV download links of the invoice at `url` (the admin API's or the merchant console's). */
export function InvoiceDownloads({ url, number }) {
  return html`<span class="downloads">
    <a href=${`${url}?format=pdf`} download aria-label=${`PDF of invoice ${number}`}>PDF</a>${' · '}<a
      href=${`${url}?format=csv`}
      download
      aria-label=${`CSV of invoice ${number}`}
      >CSV</a
    >
  </span>`;
}

const party = (p) =>
  html`<div>
    <strong>${p.legal_name}</strong>
    <div>${p.gstin ? `GSTIN ${p.gstin}` : 'No GSTIN'}</div>
    ${p.address ? html`<div>${p.address}</div>` : ''}
    <div class="muted">${`${p.state_name} (${p.state})`}</div>
  </div>`;

/** Supplier and recipient, the lines, the totals and the downloads; `merchant` renders the merchant's id. */
export function InvoiceFacts({ invoice: i, url, merchant }) {
  const intraState = i.supplier.state === i.recipient.state;
  return html`<section class="card">
      <dl class="kv" data-testid="invoice-facts">
        <dt>Number</dt>
        <dd data-testid="invoice-number">${i.number}</dd>
        <dt>Month</dt>
        <dd>${i.month}</dd>
        ${
          merchant
            ? html`<dt>Merchant</dt>
                <dd>${merchant}</dd>`
            : ''
        }
        <dt>Issued</dt>
        <dd>${when(i.issued_at)}</dd>
        <dt>SAC</dt>
        <dd>${i.sac}</dd>
        <dt>Place of supply</dt>
        <dd>${`${i.recipient.state_name} (${i.place_of_supply})`}</dd>
        <dt>Download</dt>
        <dd><${InvoiceDownloads} url=${url} number=${i.number} /></dd>
      </dl>
    </section>
    <div class="cards">
      <section class="card" aria-labelledby="supplier-h">
        <h2 id="supplier-h" style="margin-top:0">Supplier</h2>
        ${party(i.supplier)}
      </section>
      <section class="card" aria-labelledby="recipient-h">
        <h2 id="recipient-h" style="margin-top:0">Recipient</h2>
        ${party(i.recipient)}
      </section>
    </div>
    <h2>Lines</h2>
    <${Table}
      caption="Invoice lines"
      rows=${i.lines}
      rowClass=${(l) => (l.kind === 'credit' ? 'credit' : '')}
      columns=${[
        { label: 'Product', render: (l) => (l.kind === 'credit' ? `${l.product} (credit)` : l.product) },
        { label: 'Transactions', num: true, render: (l) => l.count },
        { label: 'Fees (taxable value)', num: true, render: (l) => rupees(l.fees) },
        { label: 'GST charged', num: true, render: (l) => rupees(l.tax) },
      ]}
    />
    <h2>Totals</h2>
    <${Table}
      caption="Totals"
      rows=${[
        ['Taxable value', i.taxable],
        ...(intraState
          ? [
              [`CGST (${halfRate(i.gst_rate)} %)`, i.cgst],
              [`SGST (${halfRate(i.gst_rate)} %)`, i.sgst],
            ]
          : [[`IGST (${i.gst_rate} %)`, i.igst]]),
        ['Total', i.total],
      ]}
      rowClass=${([label]) => (label === 'Total' ? 'summary' : '')}
      columns=${[
        { label: 'Of the invoice', render: ([label]) => label },
        { label: 'Amount', num: true, render: ([, amount]) => rupees(amount) },
      ]}
    />`;
}

/** Half of a percentage given as text ("18" or "18.00" → "9"), for CGST and SGST. */
function halfRate(rate) {
  const hundredths = Math.round(Number(rate) * 100) / 2;
  return String(hundredths / 100);
}
