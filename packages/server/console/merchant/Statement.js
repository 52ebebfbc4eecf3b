// One of the merchant's wallet statements, for a range of IST days, with CSV export.
import { api, ErrorNotice, html, ShortId, qs, StatementTable, useLoad, useState } from '../lib.js';
import { StatementRange } from '../shared/StatementRange.js';
import { MERCHANT_API } from './merchantApi.js';

const enc = encodeURIComponent;

export function Statement({ params: [id] }) {
  const [range, setRange] = useState({ from: '', to: '' });
  const s = useLoad(
    () => api('GET', `${MERCHANT_API}/wallets/${enc(id)}/statement${qs(range)}`),
    [id, range.from, range.to],
  );
  return html`<h1>Statement</h1>
    <p class="id"><${ShortId} id=${id} /></p>
    <${StatementRange}
      statementUrl=${`${MERCHANT_API}/wallets/${enc(id)}/statement`}
      range=${range}
      setRange=${setRange}
    />
    <${ErrorNotice} error=${s.error} />
    ${s.data && html`<${StatementTable} statement=${s.data} merchant=${true} />`}`;
}
