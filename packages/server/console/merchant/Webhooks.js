// The merchant's webhook log with resend, and the rotation of its webhook secret (shown once).
import {
  ActionButton,
  api,
  Badge,
  ErrorNotice,
  html,
  MoreButton,
  Notice,
  qs,
  ShortId,
  Table,
  usePaged,
  useState,
} from '../lib.js';
import { MERCHANT_API } from './merchantApi.js';

const enc = encodeURIComponent;

export function Webhooks() {
  const list = usePaged((cursor) => api('GET', `${MERCHANT_API}/webhooks/deliveries${qs({ cursor })}`), []);
  const [secret, setSecret] = useState(null);
  const [message, setMessage] = useState(null);
  return html`<h1>Webhooks</h1>
    ${message && html`<${Notice}>${message}</${Notice}>`}
    ${
      secret &&
      html`<${Notice} kind="warn"><p><strong>Your new webhook secret (shown once):</strong></p>
      <p class="secret" data-testid="new-webhook-secret">${secret}</p>
      <p>Deliveries are signed with the old and the new secret for 24 hours.</p>
      <button type="button" onClick=${() => setSecret(null)}>I have stored it</button></${Notice}>`
    }
    <div class="actions">
      <${ActionButton} className="secondary" confirmText="Issue a new webhook secret? The old one keeps signing for 24 hours."
        action=${async () => setSecret((await api('POST', `${MERCHANT_API}/webhook-secret/rotate`)).webhook_secret)}>Rotate webhook secret</${ActionButton}>
    </div>
    <${ErrorNotice} error=${list.error} />
    <${Table}
      caption="Your webhook deliveries"
      rows=${list.rows}
      columns=${[
        { label: 'Event', render: (d) => d.type },
        {
          label: 'Transaction',
          id: true,
          render: (d) =>
            html`<${ShortId}
              id=${d.subject_id}
              href=${d.subject_id.startsWith('PT') ? `#/payouts/${d.subject_id}` : `#/collections/${d.subject_id}`}
            />`,
        },
        { label: 'State', render: (d) => html`<${Badge} value=${d.state} />` },
        { label: 'Attempts', num: true, render: (d) => d.attempt_count },
        { label: 'Last answer', render: (d) => (d.last_status ? `HTTP ${d.last_status}` : d.last_error || '—') },
        {
          label: 'Action',
          render: (d) => html`<${ActionButton} className="secondary" label=${`Resend ${d.id}`}
            action=${async () => {
              await api('POST', `${MERCHANT_API}/webhooks/deliveries/${enc(d.id)}/replay`);
              setMessage(`Delivery ${d.id} queued again.`);
              list.reload();
            }}>Resend</${ActionButton}>`,
        },
      ]}
    />
    <${MoreButton} paged=${list} />`;
}
