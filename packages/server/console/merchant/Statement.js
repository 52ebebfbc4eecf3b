// One of the merchant's wallet statements, for a range of IST days, with CSV export.
import { api, ErrorNotice, Field, html, qs, StatementTable, useLoad, useState } from '../lib.js';
import { MERCHANT_API } from './merchantApi.js';

const enc = encodeURIComponent;

export function Statement({ params: [id] }) {
  const [range, setRange] = useState({ from: '', to: '' });
  const s = useLoad(
    () => api('GET', `${MERCHANT_API}/wallets/${enc(id)}/statement${qs(range)}`),
    [id, range.from, range.to],
  );
  return html`<h1>Statement</h1>
    <p class="id">${id}</p>
    <form class="row" onSubmit=${(e) => {
      e.preventDefault();
      const f = new FormData(e.currentTarget);
      setRange({ from: String(f.get('from') || ''), to: String(f.get('to') || '') });
    }}>
      <${Field} id="from" label="From (IST day)"><input id="from" name="from" type="date" /></${Field}>
      <${Field} id="to" label="To (IST day, inclusive)"><input id="to" name="to" type="date" /></${Field}>
      <button type="submit" class="secondary">Show</button>
      <a class="button secondary" href=${`${MERCHANT_API}/wallets/${enc(id)}/statement${qs({ ...range, format: 'csv' })}`} download>Export CSV</a>
    </form>
    <${ErrorNotice} error=${s.error} />
    ${s.data && html`<${StatementTable} statement=${s.data} />`}`;
}
