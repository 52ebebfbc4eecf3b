// The merchant's collections, newest first, narrowed by status and IST dates, each with its payment page.
import { api, Badge, ErrorNotice, html, MoreButton, qs, rupees, ShortId, Table, usePaged, useState } from '../lib.js';
import { COLLECTION_STATUSES } from '../vocabulary.js';
import { ListFilters, NO_FILTERS } from './ListFilters.js';
import { MERCHANT_API } from './merchantApi.js';

export function Collections() {
  const [filters, setFilters] = useState(NO_FILTERS);
  const list = usePaged(
    (cursor) => api('GET', `${MERCHANT_API}/collections${qs({ ...filters, cursor })}`),
    [filters.status, filters.from, filters.to],
  );
  return html`<h1>Collections</h1>
    <${ListFilters} filters=${filters} setFilters=${setFilters} statuses=${COLLECTION_STATUSES} />
    <${ErrorNotice} error=${list.error} />
    <${Table}
      caption="Your collections"
      rows=${list.rows}
      columns=${[
        {
          label: 'Collection',
          id: true,
          render: (c) => html`<${ShortId} id=${c.txnId} href=${`#/collections/${c.txnId}`} />`,
        },
        { label: 'Sender id', render: (c) => c.senderId },
        { label: 'Status', render: (c) => html`<${Badge} value=${c.status} />` },
        { label: 'Amount', num: true, render: (c) => rupees(c.requestAmount || c.amount) },
        {
          label: 'Pay link',
          render: (c) =>
            c.paymentUrl ? html`<a href=${c.paymentUrl} target="_blank" rel="noopener">Payment page</a>` : '—',
        },
      ]}
    />
    <${MoreButton} paged=${list} />`;
}
