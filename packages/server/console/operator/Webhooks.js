// Webhook deliveries for the operator: the failed ones first, then all; finance replays one, or every failed
// delivery of a merchant since a time.
import {
  ActionButton,
  ActionForm,
  api,
  Badge,
  ErrorNotice,
  Field,
  html,
  istInstant,
  MoreButton,
  Notice,
  qs,
  Table,
  usePaged,
  useState,
  when,
} from '../lib.js';
import { can } from './can.js';
import { MerchantName } from './MerchantName.js';
import { idLink } from './idLink.js';

const enc = encodeURIComponent;

export function Webhooks({ session }) {
  const failed = usePaged(
    (cursor) => api('GET', `/admin/v1/webhooks/deliveries${qs({ state: 'failed', cursor })}`),
    [],
  );
  const recent = usePaged((cursor) => api('GET', `/admin/v1/webhooks/deliveries${qs({ cursor })}`), []);
  const [message, setMessage] = useState(null);
  const finance = can(session, 'finance');
  const reload = () => {
    failed.reload();
    recent.reload();
  };
  const columns = [
    { label: 'Merchant', render: (d) => html`<${MerchantName} id=${d.merchant_id} />` },
    { label: 'Event', render: (d) => d.type },
    {
      label: 'Transaction',
      id: true,
      render: (d) => idLink(d.subject_id.startsWith('PT') ? 'payouts' : 'collections', d.subject_id),
    },
    { label: 'State', render: (d) => html`<${Badge} value=${d.state} />` },
    { label: 'Attempts', num: true, render: (d) => d.attempt_count },
    { label: 'Last answer', render: (d) => (d.last_status ? `HTTP ${d.last_status}` : d.last_error || '—') },
    { label: 'Created', render: (d) => when(d.created_at) },
    ...(finance
      ? [
          {
            label: 'Action',
            render: (d) => html`<${ActionButton} className="secondary" label=${`Replay ${d.id}`}
            action=${async () => {
              await api('POST', `/admin/v1/webhooks/deliveries/${enc(d.id)}/replay`);
              setMessage(`Delivery ${d.id} queued again.`);
              reload();
            }}>Replay</${ActionButton}>`,
          },
        ]
      : []),
  ];
  return html`<h1>Webhook deliveries</h1>
    ${message && html`<${Notice}>${message}</${Notice}>`}
    ${
      finance &&
      html`<section class="card" aria-labelledby="bulk-h">
      <h2 id="bulk-h" style="margin-top:0">Replay every failed delivery of a merchant</h2>
      <${ActionForm}
        label="Bulk replay"
        submit="Replay failed"
        action=${async (form) => {
          // The picker's wall-clock time is IST, like every time the console shows, whatever the browser's zone.
          const since = istInstant(String(form.get('since'))).toISOString();
          const r = await api('POST', '/admin/v1/webhooks/deliveries/replay', {
            merchant_id: String(form.get('merchant_id')).trim(),
            since,
          });
          setMessage(`${r.replayed} failed deliveries queued again.`);
          reload();
        }}
      >
        <div class="row" style="margin-bottom:0.75rem">
          <${Field} id="b-m" label="Merchant ID"><input id="b-m" name="merchant_id" required spellcheck=${false} /></${Field}>
          <${Field} id="b-since" label="Created since (IST)"><input id="b-since" name="since" type="datetime-local" required /></${Field}>
        </div>
      </${ActionForm}>
    </section>`
    }
    <h2>Failed</h2>
    <${ErrorNotice} error=${failed.error} />
    <${Table} caption="Failed deliveries" rows=${failed.rows} columns=${columns} empty="No failed deliveries." />
    <${MoreButton} paged=${failed} />
    <h2>All, newest first</h2>
    <${Table} caption="All deliveries" rows=${recent.rows} columns=${columns} />
    <${MoreButton} paged=${recent} />`;
}
