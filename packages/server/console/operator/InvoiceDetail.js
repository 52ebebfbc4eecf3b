// One tax invoice for the operator: its parties, lines, totals and downloads.
import { api, ErrorNotice, html, useLoad } from '../lib.js';
import { InvoiceFacts } from '../shared/InvoiceFacts.js';
import { idLink } from './idLink.js';

const enc = encodeURIComponent;

export function InvoiceDetail({ params: [id] }) {
  const url = `/admin/v1/invoices/${enc(id)}`;
  const found = useLoad(() => api('GET', url), [id]);
  const i = found.data;
  return html`<h1>Invoice${i ? ` ${i.number}` : ''}</h1>
    <p><a href="#/invoices">All invoices</a></p>
    <${ErrorNotice} error=${found.error} />
    ${i && html`<${InvoiceFacts} invoice=${i} url=${url} merchant=${idLink('merchants', i.merchant_id)} />`}`;
}
