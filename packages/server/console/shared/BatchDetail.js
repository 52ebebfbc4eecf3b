// One bulk payout batch, shared by the operator's and the merchant's batch pages: its summary by status and every
// item's verdict. The routes differ (admin or merchant console); the look does not.
import { Badge, html, rupees, ShortId, Table, when } from '../lib.js';

/** One batch: the summary, the count per status, and every item with its verdict and its payout's status. */
export function BatchDetail({ batch, payoutHref }) {
  const byStatus = Object.entries(batch.by_status || {});
  return html`<section class="card">
      <dl class="kv">
        <dt>Batch id</dt>
        <dd class="id">${batch.batch_id}</dd>
        <dt>Merchant</dt>
        <dd><${ShortId} id=${batch.merchant_id} /></dd>
        <dt>Items</dt>
        <dd data-testid="batch-summary">
          ${batch.item_count} items: ${batch.accepted} accepted, ${batch.refused} refused
          (${rupees(batch.amount_accepted)} accepted)
        </dd>
        <dt>Mode</dt>
        <dd>${batch.atomic ? 'atomic (all or nothing)' : 'item by item'}</dd>
        <dt>Created</dt>
        <dd>${when(batch.created_at)}</dd>
        <dt>Completed</dt>
        <dd>${batch.completed_at ? when(batch.completed_at) : `not yet (${batch.open_items} open)`}</dd>
      </dl>
    </section>
    ${
      byStatus.length > 0 &&
      html`<ul class="chips" aria-label="Payouts by status">
        ${byStatus.map(([status, n]) => html`<li><${Badge} value=${status} /> ${n}</li>`)}
      </ul>`
    }
    <h2>Items</h2>
    <${Table}
      caption="Batch items"
      rows=${batch.items}
      columns=${[
        { label: '#', num: true, render: (i) => i.index },
        { label: 'Sender id', render: (i) => i.sender_id },
        {
          label: 'Verdict',
          render: (i) =>
            html`<${Badge} value=${i.resp_code === 2000 ? 'accepted' : 'refused'} />
              <span class="muted">${i.resp_code} ${i.resp_message}</span>`,
        },
        {
          label: 'Payout',
          id: true,
          render: (i) =>
            i.transaction_id
              ? html`<${ShortId}
                  id=${i.transaction_id}
                  href=${payoutHref ? payoutHref(i.transaction_id) : undefined}
                />`
              : '—',
        },
        {
          label: 'Status',
          render: (i) =>
            i.status ? html`<${Badge} value=${i.status} />${i.status_message ? ` ${i.status_message}` : ''}` : '—',
        },
        { label: 'UTR', render: (i) => i.utr_number || '—' },
      ]}
    />`;
}
