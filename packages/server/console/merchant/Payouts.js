// The merchant's payouts, newest first, narrowed by status and IST dates.
import { api, ErrorNotice, html, MoreButton, qs, Table, usePaged, useState } from '../lib.js';
import { PAYOUT_STATUSES } from '../vocabulary.js';
import { payoutColumns } from '../shared/payoutColumns.js';
import { ListFilters, NO_FILTERS } from './ListFilters.js';
import { MERCHANT_API } from './merchantApi.js';

export function Payouts() {
  const [filters, setFilters] = useState(NO_FILTERS);
  const list = usePaged(
    (cursor) => api('GET', `${MERCHANT_API}/payouts${qs({ ...filters, cursor })}`),
    [filters.status, filters.from, filters.to],
  );
  return html`<h1>Payouts</h1>
    <${ListFilters} filters=${filters} setFilters=${setFilters} statuses=${PAYOUT_STATUSES} />
    <h2>Newest first</h2>
    <${ErrorNotice} error=${list.error} />
    <${Table}
      caption="Your payouts"
      rows=${list.rows}
      columns=${payoutColumns((p) => `#/payouts/${p.transaction_id}`, false)}
    />
    <${MoreButton} paged=${list} />`;
}
