// Credit approvals: operator credits above the approval threshold wait here for a second, independent operator.
import {
  ActionButton,
  api,
  Badge,
  ErrorNotice,
  html,
  MoreButton,
  qs,
  rupees,
  ShortId,
  Table,
  usePaged,
} from '../lib.js';
import { can } from './can.js';
import { idLink } from './idLink.js';

const enc = encodeURIComponent;

export function Approvals({ session }) {
  const list = usePaged((cursor) => api('GET', `/admin/v1/credit-requests${qs({ cursor })}`), []);
  const finance = can(session, 'finance');
  const decide = async (r, verdict) => {
    await api('POST', `/admin/v1/credit-requests/${enc(r.credit_request_id)}/${verdict}`);
    list.reload();
  };
  return html`<h1>Credit approvals</h1>
    <p class="muted">
      A credit made by an operator that takes their credits to a wallet in 24 hours above the approval threshold waits
      here until a different, independent finance or admin operator approves it: not one whose account, role or password
      came from the requester, nor one set up by the same operator as the requester.
    </p>
    <${ErrorNotice} error=${list.error} />
    <${Table}
      caption="Credit requests"
      rows=${list.rows}
      columns=${[
        { label: 'Request', id: true, render: (r) => html`<${ShortId} id=${r.credit_request_id} />` },
        { label: 'Wallet', id: true, render: (r) => idLink('wallets', r.wallet_id) },
        { label: 'Amount', num: true, render: (r) => rupees(r.amount) },
        { label: 'Requested by', render: (r) => r.requested_by },
        {
          label: 'Status',
          render: (r) =>
            html`<${Badge}
                value=${r.status}
              />${r.decided_by ? html` <span class="muted">by ${r.decided_by}</span>` : ''}`,
        },
        {
          label: 'Decision',
          render: (r) =>
            r.status === 'pending' && finance
              ? html`<${ActionButton} label=${`Approve ${r.credit_request_id}`} action=${() => decide(r, 'approve')}>Approve</${ActionButton}>
                  <${ActionButton} className="secondary" label=${`Reject ${r.credit_request_id}`} action=${() => decide(r, 'reject')}>Reject</${ActionButton}>`
              : '',
        },
      ]}
    />
    <${MoreButton} paged=${list} />`;
}
