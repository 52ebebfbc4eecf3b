// The merchant's bulk payout batches, newest first, narrowed by IST dates.
import { api, ErrorNotice, html, MoreButton, qs, Table, usePaged, useState } from '../lib.js';
import { batchColumns } from '../shared/batchColumns.js';
import { ListFilters, NO_FILTERS } from './ListFilters.js';
import { MERCHANT_API } from './merchantApi.js';

const enc = encodeURIComponent;

export function Batches() {
  const [filters, setFilters] = useState(NO_FILTERS);
  const list = usePaged(
    (cursor) => api('GET', `${MERCHANT_API}/batches${qs({ from: filters.from, to: filters.to, cursor })}`),
    [filters.from, filters.to],
  );
  return html`<h1>Batches</h1>
    <p class="muted">Bulk payouts sent with POST /payout/v1/bulk, newest first.</p>
    <${ListFilters} filters=${filters} setFilters=${setFilters} />
    <${ErrorNotice} error=${list.error} />
    <${Table}
      caption="Your batches"
      rows=${list.rows}
      columns=${batchColumns((b) => `#/batches/${enc(b.batch_id)}`, false)}
      empty="No batches yet."
    />
    <${MoreButton} paged=${list} />`;
}
