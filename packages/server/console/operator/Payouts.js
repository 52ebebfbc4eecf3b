// Every merchant's payouts for the operator, newest first, narrowed by status, merchant and IST dates.
import { api, ErrorNotice, html, MoreButton, qs, Table, usePaged, useState } from '../lib.js';
import { PAYOUT_STATUSES } from '../vocabulary.js';
import { payoutColumns } from '../shared/payoutColumns.js';
import { EMPTY_FILTERS, Filters } from './Filters.js';

export function Payouts() {
  const [filters, setFilters] = useState(EMPTY_FILTERS);
  const list = usePaged(
    (cursor) => api('GET', `/admin/v1/payouts${qs({ ...filters, cursor })}`),
    [filters.status, filters.merchant_id, filters.from, filters.to],
  );
  return html`<h1>Payouts</h1>
    <${Filters} statuses=${PAYOUT_STATUSES} filters=${filters} setFilters=${setFilters} />
    <h2>Newest first</h2>
    <${ErrorNotice} error=${list.error} />
    <${Table}
      caption="Payouts"
      rows=${list.rows}
      columns=${payoutColumns((p) => `#/payouts/${p.transaction_id}`, true)}
    />
    <${MoreButton} paged=${list} />`;
}
