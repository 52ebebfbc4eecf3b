// The liens of one wallet on its page (docs/operator/liens.md): each with what it holds, why, who placed and approved
// it, and for finance the actions its state allows (place, release all or part, enforce, approve or reject what waits
// on it). The server decides (roles, maker ≠ checker, the balance); this only offers what can work.
import {
  ActionButton,
  ActionForm,
  api,
  ApiError,
  Badge,
  ErrorNotice,
  Field,
  html,
  istInstant,
  Notice,
  rupees,
  ShortId,
  Table,
  useLoad,
  useState,
  when,
} from '../lib.js';
import { can } from './can.js';

const enc = encodeURIComponent;
const AMOUNT_PATTERN = '[0-9]+(\\.[0-9]{1,2})?';

/** What waits on a lien for a second operator: its placement, or an enforcement. */
const waiting = (l) => l.state === 'pending' || l.pending_enforcement !== null;

/** A message for what a lien route answered: placed or waiting, released, enforced or waiting. */
function outcomeText(verb, lien) {
  if (lien.state === 'pending') return `Lien ${lien.lien_id} waits for a second operator to approve it.`;
  if (verb === 'enforce' && lien.pending_enforcement) {
    return `The enforcement of ${rupees(lien.pending_enforcement.amount)} waits for a second operator.`;
  }
  const done = {
    place: 'placed',
    release: 'released',
    enforce: 'enforced',
    approve: 'approved',
    reject: 'turned down',
  };
  return `Lien ${lien.lien_id} ${done[verb]}: it holds ${rupees(lien.remaining)} now (${lien.state}).`;
}

function PlaceForm({ walletId, onDone }) {
  return html`<${ActionForm}
    label="Place a lien"
    submit="Place lien"
    action=${async (form, el) => {
      const reason = String(form.get('reason') || '').trim();
      if (!reason) throw new ApiError(400, 'invalid_request', 'Say why the lien is placed');
      const body = { amount: String(form.get('amount')), reason };
      const expires = String(form.get('expires_at') || '');
      if (expires) body.expires_at = istInstant(expires).toISOString();
      const lien = await api('POST', `/admin/v1/wallets/${enc(walletId)}/liens`, body);
      el.reset();
      onDone('place', lien);
    }}
  >
    <div class="row" style="margin-bottom:0.75rem">
      <${Field} id="lien-amount" label="Lien amount (₹)">
        <input id="lien-amount" name="amount" required inputmode="decimal" pattern=${AMOUNT_PATTERN} />
      </${Field}>
      <${Field} id="lien-expires" label="Expires (IST, optional)">
        <input id="lien-expires" name="expires_at" type="datetime-local" />
      </${Field}>
    </div>
    <${Field} id="lien-reason" label="Reason (the merchant sees it)">
      <input id="lien-reason" name="reason" required maxlength="500" />
    </${Field}>
  </${ActionForm}>`;
}

/** Release or enforce one lien: an amount (all it holds when empty) and a reason. */
function LienActionForm({ lien, verb, onDone, onCancel }) {
  const title = verb === 'release' ? 'Release' : 'Enforce';
  return html`<section class="card" aria-labelledby="lien-action-h" data-testid="lien-action">
    <h3 id="lien-action-h" style="margin-top:0">${title} lien <${ShortId} id=${lien.lien_id} /></h3>
    <p class="muted">
      It holds ${rupees(lien.remaining)}.
      ${
        verb === 'enforce'
          ? ' Enforcing moves the amount from the wallet to the platform’s recovery wallet.'
          : ' Releasing gives the amount back to what the merchant can spend.'
      }
    </p>
    <${ActionForm}
      label=${`${title} the lien`}
      submit=${title}
      danger=${verb === 'enforce'}
      action=${async (form) => {
        const reason = String(form.get('reason') || '').trim();
        if (!reason) throw new ApiError(400, 'invalid_request', `Say why the lien is ${verb}d`);
        const body = { reason };
        const amount = String(form.get('amount') || '').trim();
        if (amount) body.amount = amount;
        onDone(verb, await api('POST', `/admin/v1/liens/${enc(lien.lien_id)}/${verb}`, body));
      }}
    >
      <div class="row" style="margin-bottom:0.75rem">
        <${Field} id="lien-action-amount" label="Amount (₹; empty: all it holds)">
          <input id="lien-action-amount" name="amount" inputmode="decimal" pattern=${AMOUNT_PATTERN} />
        </${Field}>
        <${Field} id="lien-action-reason" label="Reason">
          <input id="lien-action-reason" name="reason" required maxlength="500" />
        </${Field}>
      </div>
    </${ActionForm}>
    <button type="button" class="secondary" onClick=${onCancel}>Cancel</button>
  </section>`;
}

function reasonCell(l) {
  return html`<span class="wrap-anywhere">${l.reason}</span>${
      l.release_reason ? html`<span class="sub">Released: ${l.release_reason}</span>` : ''
    }${
      l.pending_enforcement
        ? html`<span class="sub"
            >Enforcement of ${rupees(l.pending_enforcement.amount)} asked by ${l.pending_enforcement.requested_by}:
            ${l.pending_enforcement.reason}</span
          >`
        : ''
    }`;
}

export function WalletLiens({ session, walletId, onChanged }) {
  const found = useLoad(() => api('GET', `/admin/v1/wallets/${enc(walletId)}/liens`), [walletId]);
  const [acting, setActing] = useState(null);
  const [message, setMessage] = useState(null);
  const finance = can(session, 'finance');
  const done = (verb, lien) => {
    setActing(null);
    setMessage({
      kind: lien.state === 'pending' || lien.pending_enforcement ? 'warn' : 'ok',
      text: outcomeText(verb, lien),
    });
    found.reload();
    onChanged();
  };
  const decide = (l, verb) => async () => done(verb, await api('POST', `/admin/v1/liens/${enc(l.lien_id)}/${verb}`));
  const columns = [
    { label: 'Lien', id: true, render: (l) => html`<${ShortId} id=${l.lien_id} />` },
    { label: 'Amount', num: true, render: (l) => rupees(l.amount) },
    { label: 'Holds now', num: true, render: (l) => rupees(l.remaining) },
    { label: 'State', render: (l) => html`<${Badge} value=${l.state} />` },
    { label: 'Reason', render: reasonCell },
    {
      label: 'Placed by',
      render: (l) =>
        html`${l.placed_by}${l.approved_by && l.approved_by !== l.placed_by ? html`<span class="sub">approved by ${l.approved_by}</span>` : ''}`,
    },
    { label: 'Expires', render: (l) => (l.expires_at ? when(l.expires_at) : 'never') },
    { label: 'Placed', render: (l) => when(l.created_at) },
  ];
  if (finance) {
    columns.push({
      label: 'Actions',
      render: (l) =>
        html`<span class="actions lien-actions">
          ${
            l.state === 'active'
              ? html`<button type="button" class="secondary" onClick=${() => setActing({ lien: l, verb: 'release' })}>
                    Release
                  </button>
                  <button type="button" class="secondary" onClick=${() => setActing({ lien: l, verb: 'enforce' })}>
                    Enforce
                  </button>`
              : ''
          }
          ${
            waiting(l)
              ? html`<${ActionButton} label=${`Approve ${l.lien_id}`} action=${decide(l, 'approve')}>Approve<//>
                  <${ActionButton} label=${`Reject ${l.lien_id}`} className="secondary" action=${decide(l, 'reject')}
                    >Reject<//
                  >`
              : ''
          }
        </span>`,
    });
  }
  const data = found.data;
  return html`<h2 id="liens-h">Liens</h2>
    <section aria-labelledby="liens-h" data-testid="wallet-liens">
      ${message && html`<${Notice} kind=${message.kind}>${message.text}</${Notice}>`}
      <${ErrorNotice} error=${found.error} />
      ${data && html`<p class="muted">Held by liens now: <strong data-testid="wallet-on-lien">${rupees(data.on_lien)}</strong></p>`}
      ${
        data &&
        html`<${Table}
          caption="Liens of this wallet, newest first"
          rows=${data.liens}
          columns=${columns}
          empty="No lien on this wallet."
        />`
      }
      ${
        acting &&
        html`<${LienActionForm}
          key=${`${acting.lien.lien_id}-${acting.verb}`}
          lien=${acting.lien}
          verb=${acting.verb}
          onDone=${done}
          onCancel=${() => setActing(null)}
        />`
      }
      ${
        finance
          ? html`<section class="card" aria-labelledby="place-lien-h" style="margin-top:1rem">
              <h3 id="place-lien-h" style="margin-top:0">Place a lien</h3>
              <p class="muted">
                A lien keeps the amount from being paid out until it is released, expires or is enforced. Above the
                approval threshold a second operator approves it.
              </p>
              <${PlaceForm} walletId=${walletId} onDone=${done} />
            </section>`
          : html`<p class="muted">A finance operator places, releases and enforces liens.</p>`
      }
    </section>`;
}
