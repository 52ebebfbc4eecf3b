// Every merchant's collections for the operator, newest first, narrowed by status, merchant and IST dates.
import { api, Badge, ErrorNotice, html, MoreButton, qs, rupees, Table, usePaged, useState, when } from '../lib.js';
import { COLLECTION_STATUSES } from '../vocabulary.js';
import { merchantCell } from '../shared/merchantCell.js';
import { EMPTY_FILTERS, Filters } from './Filters.js';
import { idLink } from './idLink.js';

export function Collections() {
  const [filters, setFilters] = useState(EMPTY_FILTERS);
  const list = usePaged(
    (cursor) => api('GET', `/admin/v1/collections${qs({ ...filters, cursor })}`),
    [filters.status, filters.merchant_id, filters.from, filters.to],
  );
  return html`<h1>Collections</h1>
    <${Filters} statuses=${COLLECTION_STATUSES} filters=${filters} setFilters=${setFilters} />
    <h2>Newest first</h2>
    <${ErrorNotice} error=${list.error} />
    <${Table}
      caption="Collections"
      rows=${list.rows}
      columns=${[
        { label: 'Collection', id: true, render: (c) => idLink('collections', c.txnId) },
        { label: 'Merchant', render: merchantCell },
        { label: 'Sender id', render: (c) => c.senderId },
        { label: 'Status', render: (c) => html`<${Badge} value=${c.status} />` },
        { label: 'Amount', num: true, render: (c) => rupees(c.requestAmount || c.amount) },
        { label: 'Created', render: (c) => when(c.createdAt) },
      ]}
    />
    <${MoreButton} paged=${list} />`;
}
