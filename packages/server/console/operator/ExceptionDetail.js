// One exception of the queue (docs/operator/exceptions.md): what was reported beside what Payrail holds, why it was
// refused, and (finance) resolving it with one of the actions it allows and a reason. The server runs the action
// through the same guards as doing it by hand, and audits it.
import {
  ActionForm,
  api,
  ApiError,
  Badge,
  ErrorNotice,
  Field,
  html,
  IdText,
  ShortId,
  Notice,
  rupees,
  Table,
  useLoad,
  useState,
  when,
} from '../lib.js';
import { can } from './can.js';
import { ACTION_TEXT, ageOf, exceptionsChanged, sourceRef } from './exceptionParts.js';
import { idLink } from './idLink.js';

const enc = encodeURIComponent;

/** A reported or held value as text: amounts as rupees, anything nested as JSON. */
function factText(field, value) {
  if (value === undefined || value === null || value === '') return '—';
  if (typeof value === 'object') return JSON.stringify(value);
  if (/amount|balance/.test(field) && /^-?\d+\.\d{2}$/.test(String(value))) return rupees(value);
  return String(value);
}

/** Every field either side names, reported first: a row differs when both sides have it with other values. */
function compared(reported, held) {
  const fields = [...new Set([...Object.keys(reported || {}), ...Object.keys(held || {})])];
  return fields.map((field) => {
    const r = reported?.[field];
    const h = held?.[field];
    const both = r !== undefined && r !== null && h !== undefined && h !== null;
    return { field, r, h, differs: both && JSON.stringify(r) !== JSON.stringify(h) };
  });
}

/** The actions that need a wallet to credit (the deposit's money goes there). */
const NEEDS_WALLET = new Set(['assign_to_wallet']);

function ResolveForm({ exception: e, onResolved }) {
  const actions = e.allowed_actions || [];
  const [chosen, setChosen] = useState(actions.length === 1 ? actions[0] : '');
  if (actions.length === 0) return html`<p class="muted">No action is available for this exception.</p>`;
  return html`<${ActionForm}
    label="Resolve the exception"
    submit="Resolve"
    action=${async (form) => {
      const action = String(form.get('action') || '');
      const reason = String(form.get('reason') || '').trim();
      if (!action) throw new ApiError(400, 'invalid_request', 'Choose an action');
      if (!reason) throw new ApiError(400, 'invalid_request', 'Say why the exception is resolved this way');
      const body = { action, reason };
      if (NEEDS_WALLET.has(action)) {
        const walletId = String(form.get('wallet_id') || '').trim();
        if (!walletId) throw new ApiError(400, 'invalid_request', 'Name the wallet to credit (wallet_id)');
        body.wallet_id = walletId;
      }
      onResolved(await api('POST', `/admin/v1/exceptions/${enc(e.exception_id)}/resolve`, body));
    }}
  >
    <${Field} id="x-action" label="Action">
      <select
        id="x-action"
        name="action"
        required
        aria-describedby="x-action-help"
        value=${chosen}
        onChange=${(ev) => setChosen(ev.currentTarget.value)}
      >
        ${actions.length > 1 ? html`<option value="">Choose an action</option>` : ''}
        ${actions.map((a) => html`<option value=${a}>${a}</option>`)}
      </select>
    </${Field}>
    <ul id="x-action-help" class="muted action-help">
      ${actions.map((a) => html`<li><strong>${a}</strong>: ${ACTION_TEXT[a] || ''}</li>`)}
    </ul>
    ${
      NEEDS_WALLET.has(chosen) &&
      html`<${Field} id="x-wallet" label="Wallet to credit (wallet id)">
        <input id="x-wallet" name="wallet_id" required maxlength="64" defaultValue=${e.wallet_id || ''} />
      </${Field}>`
    }
    <${Field} id="x-reason" label="Reason (kept with the resolution and in the audit log)">
      <textarea id="x-reason" name="reason" required maxlength="1000" rows="3"></textarea>
    </${Field}>
  </${ActionForm}>`;
}

export function ExceptionDetail({ session, params: [id] }) {
  const item = useLoad(() => api('GET', `/admin/v1/exceptions/${enc(id)}`), [id]);
  const [done, setDone] = useState(null);
  // The exception of this page only: while another one's page is left, its data must not show under this id.
  const e = item.data && item.data.exception_id === id ? item.data : null;
  const resolution = e && e.resolution;
  return html`<h1>Exception</h1>
    <p class="id"><${ShortId} id=${id} /></p>
    <div class="actions">
      <a class="button secondary" href="#/exceptions">All exceptions</a>
      <button type="button" class="secondary" onClick=${item.reload}>Refresh</button>
    </div>
    ${done && html`<${Notice}>${done}</${Notice}>`}
    <${ErrorNotice} error=${item.error} />
    ${
      e &&
      html`<section class="card">
          <dl class="kv">
            <dt>Kind</dt>
            <dd><${Badge} value=${e.kind} /></dd>
            <dt>State</dt>
            <dd data-testid="exception-state"><${Badge} value=${e.state} /></dd>
            <dt>Amount at stake</dt>
            <dd>${rupees(e.amount)}</dd>
            <dt>Payout</dt>
            <dd>${idLink('payouts', e.payout_id)}</dd>
            <dt>Merchant</dt>
            <dd>${idLink('merchants', e.merchant_id)}</dd>
            <dt>Wallet</dt>
            <dd>${idLink('wallets', e.wallet_id)}</dd>
            <dt>Source</dt>
            <dd>${e.source}${e.source_ref ? html` · ${sourceRef(e)}` : ''}</dd>
            <dt>Reason</dt>
            <dd><${IdText} text=${e.reason} /></dd>
            <dt>Created</dt>
            <dd>${when(e.created_at)} (${ageOf(e.created_at, Date.now())} ago)</dd>
            ${
              e.return_payout_id &&
              html`<dt>Return to sender</dt>
                <dd data-testid="exception-return">${idLink('payouts', e.return_payout_id)}</dd>`
            }
            ${
              e.reopened &&
              html`<dt>Reopened</dt>
                <dd data-testid="exception-reopened">
                  ${when(e.reopened.at)}: <${IdText} text=${e.reopened.reason} />
                </dd>`
            }
            ${
              resolution &&
              html`<dt>Resolution</dt>
                <dd data-testid="exception-resolution">
                  <${Badge} value=${resolution.action} /> by ${resolution.by}, ${when(resolution.at)}:
                  ${resolution.reason}
                </dd>`
            }
          </dl>
        </section>
        <h2>Reported and held</h2>
        <${Table}
          caption="What was reported beside what Payrail holds"
          rows=${compared(e.reported, e.held)}
          rowClass=${(r) => (r.differs ? 'differs' : '')}
          columns=${[
            {
              label: 'Field',
              render: (r) =>
                html`${r.field}${r.differs ? html` <span class="badge amount_mismatch">differs</span>` : ''}`,
            },
            {
              label: 'Reported',
              render: (r) => html`<span class="wrap-anywhere"><${IdText} text=${factText(r.field, r.r)} /></span>`,
            },
            {
              label: 'Payrail holds',
              render: (r) => html`<span class="wrap-anywhere"><${IdText} text=${factText(r.field, r.h)} /></span>`,
            },
          ]}
          empty="Neither side recorded any field."
        />
        ${
          e.state === 'open' &&
          html`<section class="card exception-resolve" aria-labelledby="resolve-h">
            <h2 id="resolve-h" style="margin-top:0">Resolve</h2>
            ${
              can(session, 'finance')
                ? html`<${ResolveForm}
                    exception=${e}
                    onResolved=${(r) => {
                      setDone(`Resolved: ${r.resolution ? r.resolution.action : 'done'}.`);
                      item.reload();
                      exceptionsChanged();
                    }}
                  />`
                : html`<p class="muted">A finance operator resolves exceptions.</p>`
            }
          </section>`
        }`
    }`;
}
