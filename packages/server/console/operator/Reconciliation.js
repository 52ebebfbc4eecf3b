// Reconciliation of bank statements (docs/operator/reconciliation.md): the runs, newest first, and a statement import
// for finance. The server enforces the roles and audits the imports.
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
  ShortId,
  Table,
  usePaged,
  useState,
  when,
} from '../lib.js';
import { can } from './can.js';
import { RECONCILIATION_RESULTS } from './reconciliationResults.js';

const LABELS = {
  matched: 'Matched',
  amount_mismatch: 'Amount mismatch',
  unmatched: 'Unmatched',
  missing: 'Missing',
  paid_but_refunded: 'Paid but refunded',
  return_not_applied: 'Return not applied',
};

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

/**
 * The run's open exceptions named by result ("Missing 1", "Unmatched 2"): a run whose only open item is a missing
 * payout says so, rather than a general "unmatched". A server without per-result counts gives the total.
 */
function OpenResults({ run }) {
  if (run.open_exceptions === 0) return html`<${Badge} value="done" />`;
  const open = RECONCILIATION_RESULTS.filter((res) => res !== 'matched' && run.results[res].open > 0);
  if (open.length === 0) return html`<span class="badge pending">open ${run.open_exceptions}</span>`;
  return html`<span class="open-results" data-testid="run-open">
    ${open.map((res) => html`<span class=${`badge ${res}`}>${LABELS[res]} ${run.results[res].open}</span> `)}
  </span>`;
}

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
        {
          label: 'Run',
          id: true,
          render: (r) => html`<${ShortId} id=${r.run_id} href=${`#/reconciliation/${r.run_id}`} />`,
        },
        { label: 'Statement', render: (r) => r.statement.statement_id },
        { label: 'Account', id: true, render: (r) => html`<span class="account-number">${r.statement.account}</span>` },
        {
          label: 'Period',
          render: (r) =>
            r.statement.period_from === r.statement.period_to
              ? r.statement.period_to || '—'
              : `${r.statement.period_from} – ${r.statement.period_to}`,
        },
        ...RECONCILIATION_RESULTS.map((res) => ({ label: LABELS[res], num: true, render: (r) => count(r, res) })),
        {
          label: 'Open',
          num: true,
          render: (r) => html`<${OpenResults} run=${r} />`,
        },
        { label: 'Imported', render: (r) => when(r.statement.imported_at) },
      ]}
      empty="No statement imported yet."
    />
    <${MoreButton} paged=${list} />`;
}
