// One of the merchant's tax invoices, looked up under the signed-in merchant only.
import { api, ErrorNotice, html, useLoad } from '../lib.js';
import { InvoiceFacts } from '../shared/InvoiceFacts.js';
import { MERCHANT_API } from './merchantApi.js';

const enc = encodeURIComponent;

export function InvoicePage({ params: [id] }) {
  const url = `${MERCHANT_API}/invoices/${enc(id)}`;
  const found = useLoad(() => api('GET', url), [id]);
  const i = found.data;
  return html`<h1>Invoice${i ? ` ${i.number}` : ''}</h1>
    <p><a href="#/invoices">All invoices</a></p>
    <${ErrorNotice} error=${found.error} />
    ${i && html`<${InvoiceFacts} invoice=${i} url=${url} />`}`;
}
