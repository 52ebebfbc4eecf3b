// Bank files (docs/operator/bank-files.md): the pain.001 files Payrail cut, each downloadable as delivered, and the files
// the bank sent back, applied or failed with the reason.
import { api, Badge, ErrorNotice, html, rupees, Table, useLoad, when } from '../lib.js';
import { can } from './can.js';

const enc = encodeURIComponent;
const states = (f) =>
  Object.entries(f.payout_states)
    .map(([status, n]) => `${n} ${status}`)
    .join(', ') || '—';

export function BankFiles({ session }) {
  // The file as delivered holds full account numbers: finance and admin download it, a viewer reads its name.
  const mayDownload = can(session, 'finance');
  const cut = useLoad(() => api('GET', '/admin/v1/bankfiles'), []);
  const inbound = useLoad(() => api('GET', '/admin/v1/bankfiles/inbound'), []);
  return html`<h1>Bank files</h1>
    <p class="muted">
      Payouts routed to bank files leave in one pain.001 per cut-off; the bank's status reports (pain.002) and
      notifications (camt.054) come back through the inbox, and its statements (camt.053, MT940) go to reconciliation. A
      file that cannot be read moves to failed/ and changes nothing.
    </p>
    <h2>Files cut, newest first</h2>
    <${ErrorNotice} error=${cut.error} />
    <${Table}
      caption="Bank files cut"
      rows=${cut.data?.data ?? []}
      columns=${[
        {
          label: 'File',
          id: true,
          render: (f) =>
            mayDownload
              ? html`<a href=${`/admin/v1/bankfiles/${enc(f.msg_id)}`} download=${f.file_name}>${f.file_name}</a>`
              : f.file_name,
        },
        { label: 'Payouts', num: true, render: (f) => f.payout_count },
        { label: 'Total', num: true, render: (f) => rupees(f.ctrl_sum) },
        { label: 'Payouts now', render: states },
        { label: 'Cut', render: (f) => when(f.created_at) },
        {
          label: 'Delivered',
          render: (f) => (f.delivered_at ? when(f.delivered_at) : html`<${Badge} value="pending" />`),
        },
      ]}
      empty="No file cut yet."
    />
    <h2>Files from the bank, newest first</h2>
    <${ErrorNotice} error=${inbound.error} />
    <${Table}
      caption="Files from the bank"
      rows=${inbound.data?.data ?? []}
      columns=${[
        { label: 'File', id: true, render: (f) => f.name },
        { label: 'Message', render: (f) => f.message_type ?? '—' },
        { label: 'State', render: (f) => html`<${Badge} value=${f.state} />` },
        { label: 'Entries', num: true, render: (f) => f.entries },
        { label: 'Refused', num: true, render: (f) => f.refused },
        { label: 'Reason', render: (f) => f.reason ?? '—' },
        { label: 'Received', render: (f) => when(f.received_at) },
      ]}
      empty="No file from the bank yet."
    />`;
}
