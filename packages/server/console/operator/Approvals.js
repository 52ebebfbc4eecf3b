// Credit approvals: operator credits above the approval threshold wait here for a second, independent operator.
// Each request shows what it credits (merchant, wallet, amount, reference, when and by whom) and whether the
// signed-in operator may approve it: the server's verdict by the rule approving applies, with the lineage of both.
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
  when,
} from '../lib.js';
import { merchantCell } from '../shared/merchantCell.js';
import { can } from './can.js';
import { idLink } from './idLink.js';

const enc = encodeURIComponent;

const REFUSALS = {
  forbidden: () => 'Approving needs the finance or admin role.',
  same_operator: () => 'You requested it: a different operator approves (maker ≠ checker).',
  lineage_conflict: (r) =>
    `You are not independent of ${r.requested_by}: one of you set up, promoted, re-enabled or set the password of the other, or one operator did so for both.`,
};

/** Whether the signed-in operator may approve, and the lineage that decides it. */
function ApprovalRule({ r }) {
  const a = r.approval;
  if (!a || r.status !== 'pending') return html`<span class="muted">—</span>`;
  const lines = [
    ...a.requester_lineage.map((g) => `${r.requested_by}: ${g}`),
    ...a.your_lineage.map((g) => `you: ${g}`),
  ];
  return html`<div class="approval-rule" data-testid="approval-rule">
    ${
      a.allowed
        ? html`<span class="badge approved">you may approve</span>
            <span class="sub">independent of ${r.requested_by}</span>`
        : html`<span class="badge refused">you may not approve</span>
            <span class="sub">${(REFUSALS[a.refusal] || (() => a.refusal))(r)}</span>`
    }
    ${lines.length ? html`<span class="sub lineage">Lineage: ${lines.join('; ')}</span>` : ''}
  </div>`;
}

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
        {
          label: 'Merchant',
          render: (r) =>
            html`${r.merchant_id ? merchantCell(r) : '—'}<span class="sub">${idLink('wallets', r.wallet_id)}</span>`,
        },
        { label: 'Amount', num: true, render: (r) => rupees(r.amount) },
        { label: 'Reference', render: (r) => r.reference || html`<span class="muted">none</span>` },
        {
          label: 'Requested',
          render: (r) => html`${r.requested_by}<span class="sub">${when(r.created_at)}</span>`,
        },
        {
          label: 'Status',
          render: (r) =>
            html`<${Badge}
                value=${r.status}
              />${r.decided_by ? html` <span class="muted">by ${r.decided_by}</span>` : ''}`,
        },
        { label: 'Can you approve?', render: (r) => html`<${ApprovalRule} r=${r} />` },
        {
          label: 'Decision',
          render: (r) =>
            r.status === 'pending' && finance
              ? // Approve stays offered when the rule forbids it: the server refuses and says why, as beside it.
                html`<${ActionButton} label=${`Approve ${r.credit_request_id}`} action=${() => decide(r, 'approve')}>Approve</${ActionButton}>
                  <${ActionButton} className="secondary" label=${`Reject ${r.credit_request_id}`} action=${() => decide(r, 'reject')}>Reject</${ActionButton}>`
              : '',
        },
      ]}
    />
    <${MoreButton} paged=${list} />`;
}
