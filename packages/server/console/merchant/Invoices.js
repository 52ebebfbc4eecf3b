// The merchant's tax invoices for the fees it was charged, newest first, each to open or download as PDF or CSV.
import { api, ErrorNotice, Field, html, MoreButton, qs, Table, usePaged, useState } from '../lib.js';
import { invoiceColumns } from '../shared/invoiceColumns.js';
import { MERCHANT_API } from './merchantApi.js';

const enc = encodeURIComponent;

export function Invoices() {
  const [month, setMonth] = useState('');
  const list = usePaged((cursor) => api('GET', `${MERCHANT_API}/invoices${qs({ month, cursor })}`), [month]);
  return html`<h1>Invoices</h1>
    <p class="muted">A GST tax invoice for each month in which you were charged fees, to claim the input credit.</p>
    <form
      class="row"
      role="search"
      aria-label="Filters"
      onSubmit=${(e) => {
        e.preventDefault();
        setMonth(String(new FormData(e.currentTarget).get('month') || ''));
      }}
    >
      <${Field} id="mi-month" label="Month (IST)">
        <input id="mi-month" name="month" type="month" value=${month} />
      </${Field}>
      <button type="submit" class="secondary">Apply</button>
    </form>
    <${ErrorNotice} error=${list.error} />
    <${Table}
      caption="Your invoices"
      rows=${list.rows}
      empty="No invoices yet."
      columns=${invoiceColumns(
        (i) => `#/invoices/${i.invoice_id}`,
        (i) => `${MERCHANT_API}/invoices/${enc(i.invoice_id)}`,
      )}
    />
    <${MoreButton} paged=${list} />`;
}
