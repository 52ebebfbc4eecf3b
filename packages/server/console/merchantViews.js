// The merchant's own views: only /console/api/merchant/… routes, which answer nothing of other merchants.
import {
  ActionButton,
  api,
  Badge,
  DateRangeFields,
  ErrorNotice,
  Field,
  html,
  MoreButton,
  Notice,
  PayoutChart,
  qs,
  rupees,
  ShortId,
  StatementTable,
  Table,
  useLoad,
  usePaged,
  useState,
  when,
} from './lib.js';
import { COLLECTION_STATUSES, PAYOUT_STATUSES } from './vocabulary.js';
import { BATCH_ID, BatchDetail, batchColumns } from './batchViews.js';
import { PayoutFacts, payoutColumns, TimelineSection } from './payoutViews.js';

const enc = encodeURIComponent;
const BASE = '/console/api/merchant';

export const merchantNav = [
  ['#/', 'Balance'],
  ['#/payouts', 'Payouts'],
  ['#/batches', 'Batches'],
  ['#/collections', 'Collections'],
  ['#/webhooks', 'Webhooks'],
];

function Overview() {
  const o = useLoad(() => api('GET', `${BASE}/overview`), []);
  const d = o.data;
  return html`<h1>Balance</h1>
    <${ErrorNotice} error=${o.error} />
    ${
      d &&
      html`<div class="cards">
          ${d.wallets.map(
            (w) =>
              html`<div class="card">
                <div class="metric-label">Wallet <${ShortId} id=${w.wallet_id} /></div>
                <div class="metric" data-testid="merchant-balance">${rupees(w.balance)}</div>
                <div class="muted">
                  ${rupees(w.on_hold)} on hold · <a href=${`#/statement/${w.wallet_id}`}>Statement</a>
                </div>
              </div>`,
          )}
        </div>
        <section class="card">
          <h2 style="margin-top:0">Your payouts, last 24 hours</h2>
          <${PayoutChart} hours=${d.stats.payouts_per_hour} />
        </section>`
    }`;
}

function Statement({ params: [id] }) {
  const [range, setRange] = useState({ from: '', to: '' });
  const s = useLoad(() => api('GET', `${BASE}/wallets/${enc(id)}/statement${qs(range)}`), [id, range.from, range.to]);
  return html`<h1>Statement</h1>
    <p class="id">${id}</p>
    <form class="row" onSubmit=${(e) => {
      e.preventDefault();
      const f = new FormData(e.currentTarget);
      setRange({ from: String(f.get('from') || ''), to: String(f.get('to') || '') });
    }}>
      <${Field} id="from" label="From (IST day)"><input id="from" name="from" type="date" /></${Field}>
      <${Field} id="to" label="To (IST day, inclusive)"><input id="to" name="to" type="date" /></${Field}>
      <button type="submit" class="secondary">Show</button>
      <a class="button secondary" href=${`${BASE}/wallets/${enc(id)}/statement${qs({ ...range, format: 'csv' })}`} download>Export CSV</a>
    </form>
    <${ErrorNotice} error=${s.error} />
    ${s.data && html`<${StatementTable} statement=${s.data} />`}`;
}

/** The IST date range of a list (and its status, where it has one), applied with one button. */
function ListFilters({ filters, setFilters, statuses }) {
  return html`<form
    class="row"
    role="search"
    aria-label="Filters"
    onSubmit=${(e) => {
      e.preventDefault();
      const f = new FormData(e.currentTarget);
      setFilters({
        status: String(f.get('status') || ''),
        from: String(f.get('from') || ''),
        to: String(f.get('to') || ''),
      });
    }}
  >
    ${
      statuses &&
      html`<${Field} id="st" label="Status">
        <select id="st" name="status" value=${filters.status}>
          <option value="">Any</option>
          ${statuses.map((s) => html`<option>${s}</option>`)}
        </select></${Field}>`
    }
    <${DateRangeFields} range=${filters} prefix="mf" />
    <button type="submit" class="secondary">Apply</button>
  </form>`;
}

const NO_FILTERS = { status: '', from: '', to: '' };

function Payouts() {
  const [filters, setFilters] = useState(NO_FILTERS);
  const list = usePaged(
    (cursor) => api('GET', `${BASE}/payouts${qs({ ...filters, cursor })}`),
    [filters.status, filters.from, filters.to],
  );
  return html`<h1>Payouts</h1>
    <${ListFilters} filters=${filters} setFilters=${setFilters} statuses=${PAYOUT_STATUSES} />
    <h2>Newest first</h2>
    <${ErrorNotice} error=${list.error} />
    <${Table}
      caption="Your payouts"
      rows=${list.rows}
      columns=${[
        ...payoutColumns((p) => `#/payouts/${p.transaction_id}`, false),
        { label: 'UTR', render: (p) => p.utr_number || '—' },
      ]}
    />
    <${MoreButton} paged=${list} />`;
}

/** One of the merchant's payouts: the same facts and timeline an operator sees, from the merchant's own routes. */
function PayoutPage({ params: [id] }) {
  const payout = useLoad(() => api('GET', `${BASE}/payouts/${enc(id)}`), [id]);
  const timeline = useLoad(() => api('GET', `${BASE}/payouts/${enc(id)}/timeline`), [id]);
  const reload = () => {
    payout.reload();
    timeline.reload();
  };
  return html`<h1>Payout</h1>
    <p class="id">${id}</p>
    <${ErrorNotice} error=${payout.error} />
    ${payout.data && html`<${PayoutFacts} p=${payout.data} />`}
    ${!payout.error && html`<${TimelineSection} timeline=${timeline} payout=${payout.data} reload=${reload} />`}`;
}

function Batches() {
  const [filters, setFilters] = useState(NO_FILTERS);
  const list = usePaged(
    (cursor) => api('GET', `${BASE}/batches${qs({ from: filters.from, to: filters.to, cursor })}`),
    [filters.from, filters.to],
  );
  return html`<h1>Batches</h1>
    <p class="muted">Bulk payouts sent with POST /payout/v1/bulk, newest first.</p>
    <${ListFilters} filters=${filters} setFilters=${setFilters} />
    <${ErrorNotice} error=${list.error} />
    <${Table}
      caption="Your batches"
      rows=${list.rows}
      columns=${batchColumns((b) => `#/batches/${enc(b.batch_id)}`, false)}
      empty="No batches yet."
    />
    <${MoreButton} paged=${list} />`;
}

function BatchPage({ params: [id] }) {
  const batchId = decodeURIComponent(id);
  const batch = useLoad(() => api('GET', `${BASE}/batches/${enc(batchId)}`), [batchId]);
  return html`<h1>Batch ${batchId}</h1>
    <div class="actions"><button type="button" class="secondary" onClick=${batch.reload}>Refresh</button></div>
    <${ErrorNotice} error=${batch.error} />
    ${batch.data && html`<${BatchDetail} batch=${batch.data} payoutHref=${(pid) => `#/payouts/${pid}`} />`}`;
}

function Collections() {
  const [filters, setFilters] = useState(NO_FILTERS);
  const list = usePaged(
    (cursor) => api('GET', `${BASE}/collections${qs({ ...filters, cursor })}`),
    [filters.status, filters.from, filters.to],
  );
  return html`<h1>Collections</h1>
    <${ListFilters} filters=${filters} setFilters=${setFilters} statuses=${COLLECTION_STATUSES} />
    <${ErrorNotice} error=${list.error} />
    <${Table}
      caption="Your collections"
      rows=${list.rows}
      columns=${[
        {
          label: 'Collection',
          id: true,
          render: (c) => html`<${ShortId} id=${c.txnId} href=${`#/collections/${c.txnId}`} />`,
        },
        { label: 'Sender id', render: (c) => c.senderId },
        { label: 'Status', render: (c) => html`<${Badge} value=${c.status} />` },
        { label: 'Amount', num: true, render: (c) => rupees(c.requestAmount || c.amount) },
        {
          label: 'Pay link',
          render: (c) =>
            c.paymentUrl ? html`<a href=${c.paymentUrl} target="_blank" rel="noopener">Payment page</a>` : '—',
        },
      ]}
    />
    <${MoreButton} paged=${list} />`;
}

/** One collection with its QR (the UPI intent link) and its payment page, for a payer in front of the merchant. */
function CollectionPage({ params: [id] }) {
  const found = useLoad(() => api('GET', `${BASE}/collections/${enc(id)}`), [id]);
  const c = found.data;
  return html`<h1>Collection</h1>
    <p class="id">${id}</p>
    <${ErrorNotice} error=${found.error} />
    ${
      c &&
      html`<div class="cards">
        <section class="card">
          <dl class="kv">
            <dt>Status</dt>
            <dd><${Badge} value=${c.status} /></dd>
            <dt>Amount</dt>
            <dd>${rupees(c.requestAmount || c.amount)}</dd>
            <dt>Sender id</dt>
            <dd>${c.senderId}</dd>
            <dt>Created</dt>
            <dd>${when(c.createdAt)}</dd>
          </dl>
          ${
            c.paymentUrl &&
            html`<div class="actions">
              <a class="button" href=${c.paymentUrl} target="_blank" rel="noopener">Open the payment page</a>
            </div>`
          }
        </section>
        <section class="card qr-card" aria-labelledby="qr-h">
          <h2 id="qr-h" style="margin-top:0">Scan to pay with any UPI app</h2>
          <img
            class="qr"
            src=${`${BASE}/collections/${enc(id)}/qr`}
            alt=${`UPI QR code for collection ${id}`}
            width="232"
            height="232"
          />
        </section>
      </div>`
    }`;
}

function Webhooks() {
  const list = usePaged((cursor) => api('GET', `${BASE}/webhooks/deliveries${qs({ cursor })}`), []);
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
        action=${async () => setSecret((await api('POST', `${BASE}/webhook-secret/rotate`)).webhook_secret)}>Rotate webhook secret</${ActionButton}>
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
              await api('POST', `${BASE}/webhooks/deliveries/${enc(d.id)}/replay`);
              setMessage(`Delivery ${d.id} queued again.`);
              list.reload();
            }}>Resend</${ActionButton}>`,
        },
      ]}
    />
    <${MoreButton} paged=${list} />`;
}

export const merchantRoutes = [
  [/^\/$/, Overview],
  [/^\/statement\/(WL[0-9A-Z]{26})$/, Statement],
  [/^\/payouts$/, Payouts],
  [/^\/payouts\/(PT[0-9A-Z]{26})$/, PayoutPage],
  [/^\/batches$/, Batches],
  [new RegExp(`^/batches/(${BATCH_ID})$`), BatchPage],
  [/^\/collections$/, Collections],
  [/^\/collections\/(CT[0-9A-Z]{26})$/, CollectionPage],
  [/^\/webhooks$/, Webhooks],
];
