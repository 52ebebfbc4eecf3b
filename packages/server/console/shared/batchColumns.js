// The columns of a bulk payout batch list, shared by the operator's and the merchant's lists: the routes differ,
// the columns do not (the operator's add the merchant).
import { Badge, html, rupees, when } from '../lib.js';
import { merchantCell } from './merchantCell.js';

/** Columns of a batch list; `hrefOf(batch)` is where its detail page is. */
export function batchColumns(hrefOf, withMerchant) {
  return [
    { label: 'Batch', id: true, render: (b) => html`<a href=${hrefOf(b)}>${b.batch_id}</a>` },
    ...(withMerchant ? [{ label: 'Merchant', render: merchantCell }] : []),
    { label: 'Items', num: true, render: (b) => b.item_count },
    { label: 'Accepted', num: true, render: (b) => b.accepted },
    { label: 'Refused', num: true, render: (b) => b.refused },
    { label: 'Amount accepted', num: true, render: (b) => rupees(b.amount_accepted) },
    {
      label: 'State',
      render: (b) => html`<${Badge} value=${b.open_items > 0 ? 'PROCESSING' : 'done'} />`,
    },
    { label: 'Created', render: (b) => when(b.created_at) },
  ];
}
