// One reconciliation run (docs/operator/reconciliation.md): its statement, its exceptions first, each closed by finance
// with a reason (the server audits the closes), then what matched.
import { ActionForm, api, Badge, ErrorNotice, html, ShortId, rupees, Table, useLoad, useState, when } from '../lib.js';
import { can } from './can.js';
import { RECONCILIATION_RESULTS } from './reconciliationResults.js';

const enc = encodeURIComponent;

function matchedLink(i) {
  if (i.payout_id) return html`<a href=${`#/payouts/${i.payout_id}`}>${i.payout_id}</a>`;
  if (i.collection_id) return html`<a href=${`#/collections/${i.collection_id}`}>${i.collection_id}</a>`;
  if (i.wallet_id) return html`<a href=${`#/wallets/${i.wallet_id}`}>credit ${i.wallet_credit_id}</a>`;
  return '—';
}

function CloseForm({ runId, item, onClosed }) {
  return html`<${ActionForm}
    className="row"
    label=${`Close item ${item.item_id}`}
    submit="Close"
    action=${async (form) => {
      await api('POST', `/admin/v1/reconciliation/runs/${enc(runId)}/items/${enc(item.item_id)}/close`, {
        reason: String(form.get('reason') || '').trim(),
      });
      onClosed();
    }}
  >
    <label class="visually-hidden" for=${`reason-${item.item_id}`}>Reason for closing item ${item.item_id}</label>
    <input id=${`reason-${item.item_id}`} name="reason" required maxlength="1000" placeholder="Reason" />
  </${ActionForm}>`;
}

/** One string: htm drops the white space at the line breaks of a template. */
const balancesText = (st) =>
  `${st.opening.type} ${rupees(st.opening.balance)} + credits ${rupees(st.credits)} − debits ${rupees(st.debits)}` +
  ` → ${st.closing.type} ${rupees(st.closing.balance)}` +
  (st.forward_value !== '0.00' ? ` (forward value ${rupees(st.forward_value)}, after the closing date)` : '');

export function ReconciliationRun({ session, params: [id] }) {
  const run = useLoad(() => api('GET', `/admin/v1/reconciliation/runs/${enc(id)}`), [id]);
  const [showMatched, setShowMatched] = useState(false);
  const r = run.data;
  const finance = can(session, 'finance');
  const exceptions = r ? r.items.filter((i) => i.result !== 'matched') : [];
  const matched = r ? r.items.filter((i) => i.result === 'matched') : [];
  const columns = [
    { label: 'Result', render: (i) => html`<${Badge} value=${i.result} />` },
    {
      label: 'Entry',
      num: true,
      render: (i) => (i.entry_index === null ? '—' : `${i.entry_index}${i.tx_index ? `.${i.tx_index}` : ''}`),
    },
    { label: 'Direction', render: (i) => i.direction || '—' },
    { label: 'Amount', num: true, render: (i) => rupees(i.amount) },
    { label: 'Payrail', num: true, render: (i) => rupees(i.payrail_amount) },
    { label: 'Value date', render: (i) => (i.value_date || '—') + (i.forward_value ? ' (forward)' : '') },
    { label: 'Matched', id: true, render: matchedLink },
    { label: 'Reference', id: true, render: (i) => i.end_to_end_id || i.utr || i.bank_reference || '—' },
    { label: 'Note', render: (i) => i.note || i.remittance || '' },
  ];
  const exceptionColumns = [
    ...columns,
    {
      label: 'State',
      render: (i) =>
        i.state === 'closed'
          ? html`<span>closed by ${i.closed_by} (${when(i.closed_at)}): ${i.closed_reason}</span>`
          : finance
            ? html`<${CloseForm} runId=${id} item=${i} onClosed=${run.reload} />`
            : html`<${Badge} value="pending" />`,
    },
  ];
  return html`<h1>Reconciliation run</h1>
    <p class="id"><${ShortId} id=${id} /></p>
    <div class="actions">
      <button type="button" class="secondary" onClick=${run.reload}>Refresh</button>
      <a class="button secondary" href=${`/admin/v1/reconciliation/runs/${enc(id)}?format=csv`} download>Export CSV</a>
    </div>
    <${ErrorNotice} error=${run.error} />
    ${
      r &&
      html`<section class="card">
          <dl class="kv">
            <dt>Statement</dt>
            <dd>${r.statement.statement_id} <span class="muted">(${r.statement.version})</span></dd>
            <dt>Account</dt>
            <dd class="id"><span class="account-number">${r.statement.account}</span></dd>
            <dt>Period</dt>
            <dd>${r.statement.period_from || '—'} – ${r.statement.period_to || '—'}</dd>
            <dt>Balances</dt>
            <dd>${balancesText(r.statement)}</dd>
            <dt>Transactions</dt>
            <dd data-testid="recon-summary">
              ${r.transactions} transactions, ${r.open_exceptions} open exception(s)
              ${r.statement.ignored_entries ? `; ${r.statement.ignored_entries} entries not booked, not counted` : ''}
            </dd>
            <dt>Imported</dt>
            <dd>${when(r.statement.imported_at)} by ${r.statement.imported_by}</dd>
          </dl>
        </section>
        <ul class="chips" aria-label="Results">
          ${RECONCILIATION_RESULTS.map(
            (res) =>
              html`<li><${Badge} value=${res} /> ${r.results[res].count} · ${rupees(r.results[res].amount)}</li>`,
          )}
        </ul>
        <h2>Exceptions</h2>
        <${Table}
          caption="Exceptions, open first"
          rows=${exceptions}
          columns=${exceptionColumns}
          empty="No exceptions: every transaction matched."
        />
        <h2>Matched</h2>
        ${
          showMatched || matched.length === 0
            ? html`<${Table}
                caption="Matched transactions"
                rows=${matched}
                columns=${columns}
                empty="Nothing matched."
              />`
            : html`<div class="actions">
                <button type="button" class="secondary" onClick=${() => setShowMatched(true)}>
                  Show the ${matched.length} matched transactions
                </button>
              </div>`
        }`
    }`;
}
