// Reconciliation of bank statements (docs/operator/reconciliation.md): the runs, a statement import for finance, and one
// run with its exceptions first, each closed with a reason. The server enforces the roles and audits the closes.
import {
  ActionForm,
  api,
  ApiError,
  Badge,
  ErrorNotice,
  Field,
  html,
  MoreButton,
  Notice,
  qs,
  rupees,
  Table,
  useLoad,
  usePaged,
  useState,
  when,
} from './lib.js';

const RANK = { viewer: 0, finance: 1, admin: 2 };
const can = (session, role) => RANK[session.operator.role] >= RANK[role];
const enc = encodeURIComponent;
const RESULTS = ['matched', 'amount_mismatch', 'unmatched', 'missing'];
const LABELS = { matched: 'Matched', amount_mismatch: 'Amount mismatch', unmatched: 'Unmatched', missing: 'Missing' };

/** Sends a statement file as it is: XML (camt.053) or text (MT940), with the session's CSRF token. */
async function importStatement(session, file) {
  const head = (await file.slice(0, 64).text()).replace(/^\uFEFF/, '').trimStart();
  const res = await fetch('/admin/v1/reconciliation/statements', {
    method: 'POST',
    headers: {
      accept: 'application/json',
      'content-type': head.startsWith('<') ? 'application/xml' : 'text/plain',
      'x-csrf-token': session.csrf_token,
    },
    body: file,
    credentials: 'same-origin',
  });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const error = data.error || {};
    throw new ApiError(res.status, error.code || 'error', error.message || `${res.status} ${res.statusText}`);
  }
  return data;
}

const count = (run, result) => run.results[result].count;

export function Reconciliation({ session }) {
  const list = usePaged((cursor) => api('GET', `/admin/v1/reconciliation/runs${qs({ cursor })}`), []);
  const [done, setDone] = useState(null);
  return html`<h1>Reconciliation</h1>
    <p class="muted">
      Bank statements (camt.053 or MT940) matched against payouts, returns, collections and wallet credits. Each run
      lists its exceptions first: amount mismatches, money the bank moved that Payrail does not know of, and payouts the
      statement does not show.
    </p>
    ${
      can(session, 'finance') &&
      html`<section class="card" aria-labelledby="recon-import">
        <h2 id="recon-import" style="margin-top:0">Import a statement</h2>
        ${done && html`<${Notice}>${done}</${Notice}>`}
        <${ActionForm}
          label="Import a statement"
          submit="Import"
          action=${async (form, el) => {
            const file = form.get('statement');
            if (!file || !file.size) throw new ApiError(400, 'invalid_request', 'Choose a statement file');
            const answer = await importStatement(session, file);
            el.reset();
            setDone(
              answer.runs
                .map(
                  (r) =>
                    `${r.already_imported ? 'Already imported (nothing changed)' : 'Imported'}: ${r.statement.statement_id}, ${r.open_exceptions} open exception(s).`,
                )
                .join(' '),
            );
            list.reload();
          }}
        >
          <div class="row" style="margin-bottom:0.75rem">
            <${Field} id="recon-file" label="camt.053 (XML) or MT940 file">
              <input id="recon-file" name="statement" type="file" accept=".xml,.sta,.txt,.940,.mt940,text/xml,application/xml,text/plain" required />
            </${Field}>
          </div>
        </${ActionForm}>
      </section>`
    }
    <h2>Runs, newest first</h2>
    <${ErrorNotice} error=${list.error} />
    <${Table}
      caption="Reconciliation runs"
      rows=${list.rows}
      columns=${[
        { label: 'Run', id: true, render: (r) => html`<a href=${`#/reconciliation/${r.run_id}`}>${r.run_id}</a>` },
        { label: 'Statement', render: (r) => r.statement.statement_id },
        { label: 'Account', id: true, render: (r) => r.statement.account },
        {
          label: 'Period',
          render: (r) =>
            r.statement.period_from === r.statement.period_to
              ? r.statement.period_to || '—'
              : `${r.statement.period_from} – ${r.statement.period_to}`,
        },
        ...RESULTS.map((res) => ({ label: LABELS[res], num: true, render: (r) => count(r, res) })),
        {
          label: 'Open',
          num: true,
          render: (r) =>
            r.open_exceptions > 0
              ? html`<${Badge} value="unmatched" /> ${r.open_exceptions}`
              : html`<${Badge} value="done" />`,
        },
        { label: 'Imported', render: (r) => when(r.statement.imported_at) },
      ]}
      empty="No statement imported yet."
    />
    <${MoreButton} paged=${list} />`;
}

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
    <p class="id">${id}</p>
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
            <dd class="id">${r.statement.account}</dd>
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
          ${RESULTS.map(
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
