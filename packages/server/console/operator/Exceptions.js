// The exceptions queue (docs/operator/exceptions.md): every outside report Payrail refused and every reconciliation
// result other than matched. Open ones first, oldest first, then the resolved ones; each opens its detail, where
// finance resolves it.
import {
  api,
  Badge,
  ErrorNotice,
  Field,
  html,
  MoreButton,
  qs,
  rupees,
  ShortId,
  Table,
  useEffect,
  usePaged,
  useState,
  when,
} from '../lib.js';
import { EXCEPTION_KINDS, EXCEPTION_STATES } from '../vocabulary.js';
import { ageOf, exceptionsChanged, sourceCell, subjectCell } from './exceptionParts.js';

/** No filter: every kind, open and resolved. */
const EMPTY_FILTERS = { kind: '', state: '' };
const NO_PAGE = { data: [], has_more: false, next_cursor: null };

function ExceptionFilters({ filters, setFilters }) {
  return html`<form
    class="row"
    role="search"
    aria-label="Filters"
    onSubmit=${(e) => {
      e.preventDefault();
      const f = new FormData(e.currentTarget);
      setFilters({ kind: String(f.get('kind') || ''), state: String(f.get('state') || '') });
    }}
  >
    <${Field} id="x-kind" label="Kind">
      <select id="x-kind" name="kind" value=${filters.kind}>
        <option value="">Any</option>
        ${EXCEPTION_KINDS.map((k) => html`<option value=${k}>${k}</option>`)}
      </select>
    </${Field}>
    <${Field} id="x-state" label="State">
      <select id="x-state" name="state" value=${filters.state}>
        <option value="">Open, then resolved</option>
        ${EXCEPTION_STATES.map((s) => html`<option value=${s}>${s}</option>`)}
      </select>
    </${Field}>
    <button type="submit" class="secondary">Apply</button>
  </form>`;
}

const columns = (now) => [
  {
    label: 'Exception',
    id: true,
    render: (e) => html`<${ShortId} id=${e.exception_id} href=${`#/exceptions/${e.exception_id}`} />`,
  },
  { label: 'Kind', render: (e) => html`<${Badge} value=${e.kind} />` },
  { label: 'Amount at stake', num: true, render: (e) => rupees(e.amount) },
  { label: 'Payout / merchant', id: true, render: subjectCell },
  { label: 'Source', render: sourceCell },
  { label: 'Reason', render: (e) => html`<span class="exception-reason" title=${e.reason}>${e.reason}</span>` },
  {
    label: 'Age',
    num: true,
    render: (e) => html`<span title=${when(e.created_at)}>${ageOf(e.created_at, now)}</span>`,
  },
];

const resolutionColumn = {
  label: 'Resolution',
  render: (e) =>
    e.resolution
      ? html`<span class="exception-resolution"
          ><${Badge} value=${e.resolution.action} /><span class="sub">${e.resolution.by}</span
          ><span class="sub">${when(e.resolution.at)}</span></span
        >`
      : '—',
};

export function Exceptions() {
  const [filters, setFilters] = useState(EMPTY_FILTERS);
  const deps = [filters.kind, filters.state];
  const pageOf = (state) => (cursor) =>
    filters.state && filters.state !== state
      ? Promise.resolve(NO_PAGE)
      : api('GET', `/admin/v1/exceptions${qs({ state, kind: filters.kind, cursor })}`);
  const open = usePaged(pageOf('open'), deps);
  const resolved = usePaged(pageOf('resolved'), deps);
  // Opening the queue reads the navigation's open count again.
  useEffect(() => {
    exceptionsChanged();
  }, []);
  const now = Date.now();
  const csv = `/admin/v1/exceptions${qs({ format: 'csv', state: filters.state, kind: filters.kind })}`;
  return html`<h1>Exceptions</h1>
    <p class="muted">
      Reports Payrail refused (another connector's payout, another amount, a status that contradicts what the bank paid)
      and reconciliation results other than matched. Nothing moved for any of them: each waits here until a finance
      operator resolves it, with a reason.
    </p>
    <${ExceptionFilters} filters=${filters} setFilters=${setFilters} />
    <div class="actions">
      <button
        type="button"
        class="secondary"
        onClick=${() => {
          open.reload();
          resolved.reload();
          exceptionsChanged();
        }}
      >
        Refresh
      </button>
      <a class="button secondary" href=${csv} download="exceptions.csv">Export CSV</a>
    </div>
    ${
      filters.state !== 'resolved' &&
      html`<h2>Open, oldest first</h2>
        <${ErrorNotice} error=${open.error} />
        <div class="exceptions-table">
          <${Table}
            caption="Open exceptions"
            rows=${open.rows}
            columns=${columns(now)}
            empty=${open.loading ? 'Loading…' : 'No open exception.'}
          />
        </div>
        <${MoreButton} paged=${open} />`
    }
    ${
      filters.state !== 'open' &&
      html`<h2>Resolved, oldest first</h2>
        <${ErrorNotice} error=${resolved.error} />
        <div class="exceptions-table">
          <${Table}
            caption="Resolved exceptions"
            rows=${resolved.rows}
            columns=${[...columns(now), resolutionColumn]}
            empty=${resolved.loading ? 'Loading…' : 'No resolved exception.'}
          />
        </div>
        <${MoreButton} paged=${resolved} />`
    }`;
}
