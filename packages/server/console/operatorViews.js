// The operator's views. Every action calls a documented admin route; the server enforces the roles, the page
// only hides what the signed-in role cannot do.
import {
  ActionButton,
  ActionForm,
  api,
  Badge,
  DateRangeFields,
  ErrorNotice,
  Field,
  html,
  istInstant,
  MoreButton,
  Notice,
  PayoutChart,
  qs,
  rupees,
  ShortId,
  StatementTable,
  sumMoney,
  Table,
  Timeline,
  useLoad,
  usePaged,
  useState,
  when,
} from './lib.js';
import { timelineEvents } from './timeline.js';
import { COLLECTION_STATUSES, OPERATOR_ROLES, PAYOUT_STATUSES } from './vocabulary.js';
import { BATCH_ID, BatchDetail, batchColumns, batchHref } from './batchViews.js';
import { merchantCell, PayoutFacts, payoutColumns, TimelineSection } from './payoutViews.js';
import { Reconciliation, ReconciliationRun } from './reconciliationViews.js';
import { BankFiles } from './bankFileViews.js';

const RANK = { viewer: 0, finance: 1, admin: 2 };
const can = (session, role) => RANK[session.operator.role] >= RANK[role];
const enc = encodeURIComponent;
const idLink = (kind, id) => (id ? html`<${ShortId} id=${id} href=${`#/${kind}/${id}`} />` : '—');

export function operatorNav(role) {
  return [
    ['#/', 'Overview'],
    ['#/merchants', 'Merchants'],
    ['#/payouts', 'Payouts'],
    ['#/batches', 'Batches'],
    ['#/collections', 'Collections'],
    ['#/webhooks', 'Webhooks'],
    ['#/approvals', 'Approvals'],
    ['#/ledger', 'Ledger'],
    ['#/reconciliation', 'Reconciliation'],
    ['#/bankfiles', 'Bank files'],
    ['#/audit', 'Audit log'],
    ...(role === 'admin' ? [['#/operators', 'Operators']] : []),
  ];
}

function Overview() {
  const stats = useLoad(() => api('GET', '/admin/v1/stats'), []);
  const s = stats.data;
  return html`<h1>Overview</h1>
    <${ErrorNotice} error=${stats.error} />
    ${
      s &&
      html`<div class="cards">
          <div class="card">
            <div class="metric-label">Success rate (24 h)</div>
            <div class="metric" data-testid="success-rate">
              ${s.success_rate === null ? '—' : `${(s.success_rate * 100).toFixed(1)}%`}
            </div>
          </div>
          <div class="card">
            <div class="metric-label">Money on hold</div>
            <div class="metric">${rupees(s.money_on_hold)}</div>
            <div class="muted">${s.payouts_on_hold} open payouts</div>
          </div>
          <div class="card">
            <div class="metric-label">Webhook backlog</div>
            <div class="metric">${s.webhook_backlog.pending}</div>
            <div class="muted">waiting · <a href="#/webhooks">${s.webhook_backlog.failed} failed</a></div>
          </div>
        </div>
        <section class="card" aria-labelledby="chart-h">
          <h2 id="chart-h" style="margin-top:0">Payouts per status, last 24 hours</h2>
          <${PayoutChart} hours=${s.payouts_per_hour} />
        </section>`
    }
    <${Connectors} />`;
}

/**
 * The figures of a coverage warning, as one string: htm drops whitespace that holds a line break next to an
 * interpolation, so the words around the amounts must not be split over lines of the template.
 */
const shortfall = (t) => `balance ${rupees(t.upstream_balance)} for ${rupees(t.owed)} owed (coverage ${t.coverage}).`;

/** Each connector's routes and health; for the upstream, whether its account covers what merchants hold. */
function Connectors() {
  const list = useLoad(() => api('GET', '/admin/v1/connectors'), []);
  const connectors = list.data?.connectors ?? [];
  const short = connectors.filter((c) => c.treasury?.coverage && Number(c.treasury.coverage) < 1);
  return html`<section class="card" aria-labelledby="connectors-h" data-testid="connectors">
    <h2 id="connectors-h" style="margin-top:0">Connectors</h2>
    <${ErrorNotice} error=${list.error} />
    ${short.map(
      (c) => html`<${Notice} kind="warn">
        <p data-testid="coverage-warning">
          <strong>The ${c.name} account does not cover what merchants hold:</strong> ${shortfall(c.treasury)} Top it
          up before payouts wait on it.
        </p>
      </${Notice}>`,
    )}
    <table>
      <thead>
        <tr>
          <th>Connector</th>
          <th>Modes</th>
          <th>Health</th>
          <th>Balance</th>
          <th>Owed</th>
          <th>Coverage</th>
        </tr>
      </thead>
      <tbody>
        ${connectors.map(
          (c) =>
            html`<tr>
              <td>${c.name}</td>
              <td>${c.routes.join(', ') || '—'}</td>
              <td title=${c.last_failure || ''}>${c.healthy ? 'answering' : `failing: ${c.last_failure || ''}`}</td>
              <td class="num">${c.treasury ? rupees(c.treasury.upstream_balance) : '—'}</td>
              <td class="num">${c.treasury ? rupees(c.treasury.owed) : '—'}</td>
              <td class="num">${c.treasury?.coverage ?? '—'}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}

function CredentialsOnce({ creds, onDone }) {
  return html`<${Notice} kind="warn">
    <p><strong>Copy these now: they are not shown again.</strong></p>
    <dl class="kv">
      ${
        creds.merchant_id
          ? html`<dt>Merchant ID</dt>
              <dd class="secret" data-testid="new-merchant-id">${creds.merchant_id}</dd>`
          : ''
      }
      ${
        creds.wallet_id
          ? html`<dt>Wallet ID</dt>
              <dd class="secret">${creds.wallet_id}</dd>`
          : ''
      }
      ${
        creds.api_key
          ? html`<dt>API key</dt>
              <dd class="secret" data-testid="api-key">${creds.api_key}</dd>`
          : ''
      }
      ${
        creds.secret_key
          ? html`<dt>Secret key</dt>
              <dd class="secret" data-testid="secret-key">${creds.secret_key}</dd>`
          : ''
      }
      ${
        creds.webhook_secret
          ? html`<dt>Webhook secret</dt>
              <dd class="secret">${creds.webhook_secret}</dd>`
          : ''
      }
    </dl>
    <div class="actions"><button type="button" onClick=${onDone}>I have stored them</button></div>
  </${Notice}>`;
}

function Merchants({ session }) {
  const [query, setQuery] = useState('');
  const [created, setCreated] = useState(null);
  const list = usePaged((cursor) => api('GET', `/admin/v1/merchants${qs({ q: query, cursor })}`), [query]);
  const listMissing = list.error && list.error.status === 404;
  return html`<h1>Merchants</h1>
    ${created && html`<${CredentialsOnce} creds=${created} onDone=${() => setCreated(null)} />`}
    ${
      can(session, 'admin') &&
      html`<section class="card" aria-labelledby="new-m">
      <h2 id="new-m" style="margin-top:0">New merchant</h2>
      <${ActionForm}
        label="New merchant"
        submit="Create merchant"
        action=${async (form, el) => {
          setCreated(await api('POST', '/admin/v1/merchants', { name: String(form.get('name')) }));
          el.reset();
          list.reload();
        }}
      >
        <${Field} id="m-name" label="Name"><input id="m-name" name="name" required maxlength="200" /></${Field}>
      </${ActionForm}>
    </section>`
    }
    <form class="row" role="search" onSubmit=${(e) => {
      e.preventDefault();
      setQuery(String(new FormData(e.currentTarget).get('q') || ''));
    }}>
      <${Field} id="m-q" label="Search merchants (name or id)"><input id="m-q" name="q" /></${Field}>
      <button type="submit" class="secondary">Search</button>
    </form>
    <h2>All merchants</h2>
    ${
      listMissing
        ? html`<p class="muted">Open a merchant with the search box at the top (MR…).</p>`
        : html`<${ErrorNotice} error=${list.error} />
            <${Table}
              caption="Merchants"
              rows=${list.rows}
              columns=${[
                { label: 'Merchant', render: (m) => html`<a href=${`#/merchants/${m.merchant_id}`}>${m.name}</a>` },
                { label: 'ID', id: true, render: (m) => html`<${ShortId} id=${m.merchant_id} />` },
                { label: 'Status', render: (m) => html`<${Badge} value=${m.status} />` },
                {
                  label: 'Balance',
                  num: true,
                  render: (m) => rupees(sumMoney((m.wallets || []).map((w) => w.balance))),
                },
                { label: 'Created', render: (m) => when(m.created_at) },
              ]}
            />
            <${MoreButton} paged=${list} />`
    }`;
}

function MerchantDetail({ session, params: [id] }) {
  const m = useLoad(() => api('GET', `/admin/v1/merchants/${enc(id)}`), [id]);
  const [secret, setSecret] = useState(null);
  const [message, setMessage] = useState(null);
  const admin = can(session, 'admin');
  const patch = async (body, what) => {
    await api('PATCH', `/admin/v1/merchants/${enc(id)}`, body);
    setMessage(what);
    m.reload();
  };
  const d = m.data;
  return html`<h1>Merchant ${d ? d.name : id}</h1>
    <${ErrorNotice} error=${m.error} />
    ${message && html`<${Notice}>${message}</${Notice}>`}
    ${secret && html`<${CredentialsOnce} creds=${secret} onDone=${() => setSecret(null)} />`}
    ${
      d &&
      html`<section class="card">
          <dl class="kv">
            <dt>ID</dt>
            <dd class="id">${d.merchant_id}</dd>
            <dt>Status</dt>
            <dd><${Badge} value=${d.status} /></dd>
            <dt>Daily limit</dt>
            <dd>${d.daily_limit ? rupees(d.daily_limit) : 'none'}</dd>
            <dt>Monthly limit</dt>
            <dd>${d.monthly_limit ? rupees(d.monthly_limit) : 'none'}</dd>
            <dt>UPI VPA</dt>
            <dd>${d.upi_vpa || '—'}</dd>
            <dt>Collection callback</dt>
            <dd>${d.collection_callback_url || '—'}</dd>
            <dt>Beneficiary verification</dt>
            <dd data-testid="verification">
              ${d.beneficiary_verification || 'off'}${
                d.beneficiary_verification === 'required' ? ` (name match ≥ ${d.min_name_match_score})` : ''
              }
            </dd>
            <dt>Default scheme</dt>
            <dd data-testid="default-scheme">${d.default_scheme || 'v2'}</dd>
            <dt>Created</dt>
            <dd>${when(d.created_at)}</dd>
          </dl>
          ${
            admin &&
            html`<div class="actions">
          ${
            d.status === 'active'
              ? html`<${ActionButton} className="danger" confirmText="Suspend this merchant? Its tokens stop working."
                action=${() => patch({ status: 'suspended' }, 'Merchant suspended.')}>Suspend</${ActionButton}>`
              : html`<${ActionButton} action=${() => patch({ status: 'active' }, 'Merchant active again.')}>Reactivate</${ActionButton}>`
          }
          <${ActionButton} className="secondary" confirmText="Issue new keys? The old ones stop working at once."
            action=${async () => setSecret(await api('POST', `/admin/v1/merchants/${enc(id)}/credentials/rotate`))}>
            Rotate API keys</${ActionButton}>
          <${ActionButton} className="secondary" confirmText="Issue a new webhook secret? The old one signs alongside for 24 h."
            action=${async () => setSecret(await api('POST', `/admin/v1/merchants/${enc(id)}/webhook-secret/rotate`))}>
            Rotate webhook secret</${ActionButton}>
          <${ActionButton} className="secondary" action=${async () => {
            await api('POST', `/admin/v1/merchants/${enc(id)}/wallets`);
            m.reload();
          }}>Open another wallet</${ActionButton}>
        </div>`
          }
        </section>
        <h2>Wallets</h2>
        <${Table}
          caption="Wallets"
          rows=${d.wallets}
          columns=${[
            { label: 'Wallet', id: true, render: (w) => idLink('wallets', w.wallet_id) },
            { label: 'Balance', num: true, render: (w) => rupees(w.balance) },
          ]}
        />
        ${
          admin &&
          html`<h2>Limits and settings</h2>
        <section class="card">
          <${ActionForm}
            label="Limits and settings"
            submit="Save"
            action=${async (form) => {
              const body = {};
              for (const key of [
                'daily_limit',
                'monthly_limit',
                'upi_vpa',
                'upi_payee_name',
                'collection_callback_url',
              ]) {
                const value = String(form.get(key) || '').trim();
                body[key] = value === '' ? null : value;
              }
              await patch(body, 'Settings saved.');
            }}
          >
            <div class="row">
              <${Field} id="dl" label="Daily limit (₹, empty for none)"><input id="dl" name="daily_limit" inputmode="decimal" value=${d.daily_limit || ''} /></${Field}>
              <${Field} id="ml" label="Monthly limit (₹, empty for none)"><input id="ml" name="monthly_limit" inputmode="decimal" value=${d.monthly_limit || ''} /></${Field}>
            </div>
            <div class="row" style="margin-top:0.75rem">
              <${Field} id="vpa" label="UPI VPA"><input id="vpa" name="upi_vpa" value=${d.upi_vpa || ''} /></${Field}>
              <${Field} id="payee" label="UPI payee name"><input id="payee" name="upi_payee_name" value=${d.upi_payee_name || ''} /></${Field}>
            </div>
            <div style="margin:0.75rem 0">
              <${Field} id="ccb" label="Collection callback URL"><input id="ccb" name="collection_callback_url" type="url" value=${d.collection_callback_url || ''} /></${Field}>
            </div>
          </${ActionForm}>
        </section>
        <h2 id="verif-h">Beneficiary verification</h2>
        <section class="card" aria-labelledby="verif-h">
          <p class="muted">
            When required, each payout's beneficiary name must match the bank's account holder name at least this
            well (0–100) before money moves.
          </p>
          <${ActionForm}
            label="Beneficiary verification"
            submit="Save verification"
            action=${async (form) => {
              await patch(
                {
                  beneficiary_verification: String(form.get('beneficiary_verification')),
                  min_name_match_score: Number(form.get('min_name_match_score')),
                },
                'Verification setting saved.',
              );
            }}
          >
            <div class="row" style="margin-bottom:0.75rem">
              <${Field} id="bv" label="Verification before payouts">
                <select id="bv" name="beneficiary_verification" value=${d.beneficiary_verification || 'off'}>
                  <option value="off">off</option>
                  <option value="required">required</option>
                </select>
              </${Field}>
              <${Field} id="mnms" label="Minimum name match score (0–100)">
                <input id="mnms" name="min_name_match_score" type="number" min="0" max="100" step="1" required
                  value=${d.min_name_match_score ?? ''} />
              </${Field}>
            </div>
          </${ActionForm}>
          <p class="muted">
            The scheme of a token the merchant asks for with plain credentials on the V1 token path
            (<code>{"api_key","secret_key"}</code>, as the provider's live service takes them).
          </p>
          <${ActionForm}
            label="Default scheme"
            submit="Save scheme"
            action=${async (form) => {
              await patch({ default_scheme: String(form.get('default_scheme')) }, 'Default scheme saved.');
            }}
          >
            <div class="row" style="margin-bottom:0.75rem">
              <${Field} id="ds" label="Scheme of plain-credential tokens">
                <select id="ds" name="default_scheme" value=${d.default_scheme || 'v2'}>
                  <option value="v2">v2 (AES-256-GCM)</option>
                  <option value="v1">v1 (AES-256-CBC)</option>
                </select>
              </${Field}>
            </div>
          </${ActionForm}>
        </section>`
        }`
    }`;
}

function Wallet({ session, params: [id] }) {
  const wallet = useLoad(() => api('GET', `/admin/v1/wallets/${enc(id)}`), [id]);
  const [range, setRange] = useState({ from: '', to: '' });
  const statement = useLoad(
    () => api('GET', `/admin/v1/wallets/${enc(id)}/statement${qs(range)}`),
    [id, range.from, range.to],
  );
  const [message, setMessage] = useState(null);
  const w = wallet.data;
  return html`<h1>Wallet</h1>
    <p class="id">${id}</p>
    <${ErrorNotice} error=${wallet.error} />
    ${
      w &&
      html`<div class="cards">
        <div class="card">
          <div class="metric-label">Balance</div>
          <div class="metric" data-testid="wallet-balance">${rupees(w.balance)}</div>
        </div>
        <div class="card">
          <div class="metric-label">On hold (open payouts)</div>
          <div class="metric">${rupees(w.on_hold)}</div>
        </div>
        <div class="card">
          <div class="metric-label">Merchant</div>
          <div>${idLink('merchants', w.merchant_id)}</div>
        </div>
      </div>`
    }
    ${message && html`<${Notice} kind=${message.kind}>${message.text}</${Notice}>`}
    ${
      can(session, 'finance') &&
      html`<section class="card" aria-labelledby="credit-h">
      <h2 id="credit-h" style="margin-top:0">Credit this wallet</h2>
      <${ActionForm}
        label="Credit this wallet"
        submit="Credit"
        action=${async (form, el) => {
          const body = { amount: String(form.get('amount')) };
          const reference = String(form.get('reference') || '').trim();
          if (reference) body.reference = reference;
          const r = await api('POST', `/admin/v1/wallets/${enc(id)}/credits`, body);
          setMessage(
            r.credit_request_id
              ? {
                  kind: 'warn',
                  text: `${rupees(r.amount)} takes your credits to this wallet in 24 hours above the approval threshold: request ${r.credit_request_id} waits for a second operator.`,
                }
              : {
                  kind: 'ok',
                  text: `Credited. New balance ${rupees(r.balance)}${r.duplicate ? ' (this reference was already credited; nothing moved)' : ''}.`,
                },
          );
          el.reset();
          wallet.reload();
          statement.reload();
        }}
      >
        <div class="row" style="margin-bottom:0.75rem">
          <${Field} id="amount" label="Amount (₹)"><input id="amount" name="amount" required inputmode="decimal" pattern="[0-9]+(\\.[0-9]{1,2})?" /></${Field}>
          <${Field} id="reference" label="Reference (optional, makes it idempotent)"><input id="reference" name="reference" maxlength="100" /></${Field}>
        </div>
      </${ActionForm}>
    </section>`
    }
    <h2>Statement</h2>
    <form class="row" onSubmit=${(e) => {
      e.preventDefault();
      const f = new FormData(e.currentTarget);
      setRange({ from: String(f.get('from') || ''), to: String(f.get('to') || '') });
    }}>
      <${Field} id="from" label="From (IST day)"><input id="from" name="from" type="date" /></${Field}>
      <${Field} id="to" label="To (IST day, inclusive)"><input id="to" name="to" type="date" /></${Field}>
      <button type="submit" class="secondary">Show</button>
      <a class="button secondary" data-testid="csv" href=${`/admin/v1/wallets/${enc(id)}/statement${qs({ ...range, format: 'csv' })}`} download>Export CSV</a>
    </form>
    <${ErrorNotice} error=${statement.error} />
    ${
      statement.data &&
      html`<p class="muted">
          Credits ${rupees(statement.data.total_credits)} · debits ${rupees(statement.data.total_debits)}
        </p>
        <${StatementTable} statement=${statement.data} />`
    }`;
}

const EMPTY_FILTERS = { status: '', merchant_id: '', from: '', to: '' };

function Filters({ statuses, filters, setFilters }) {
  return html`<form class="row" role="search" aria-label="Filters" onSubmit=${(e) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    setFilters({
      status: String(f.get('status') || ''),
      merchant_id: String(f.get('merchant_id') || '').trim(),
      from: String(f.get('from') || ''),
      to: String(f.get('to') || ''),
    });
  }}>
    <${Field} id="f-status" label="Status">
      <select id="f-status" name="status" value=${filters.status}>
        <option value="">Any</option>
        ${statuses.map((s) => html`<option value=${s}>${s}</option>`)}
      </select>
    </${Field}>
    <${Field} id="f-merchant" label="Merchant ID"><input id="f-merchant" name="merchant_id" value=${filters.merchant_id} spellcheck=${false} /></${Field}>
    <${DateRangeFields} range=${filters} prefix="f" />
    <button type="submit" class="secondary">Apply</button>
  </form>`;
}

function Payouts() {
  const [filters, setFilters] = useState(EMPTY_FILTERS);
  const list = usePaged(
    (cursor) => api('GET', `/admin/v1/payouts${qs({ ...filters, cursor })}`),
    [filters.status, filters.merchant_id, filters.from, filters.to],
  );
  return html`<h1>Payouts</h1>
    <${Filters} statuses=${PAYOUT_STATUSES} filters=${filters} setFilters=${setFilters} />
    <h2>Newest first</h2>
    <${ErrorNotice} error=${list.error} />
    <${Table}
      caption="Payouts"
      rows=${list.rows}
      columns=${payoutColumns((p) => `#/payouts/${p.transaction_id}`, true)}
    />
    <${MoreButton} paged=${list} />`;
}

function Batches() {
  const [filters, setFilters] = useState({ merchant_id: '', from: '', to: '' });
  const list = usePaged(
    (cursor) => api('GET', `/admin/v1/batches${qs({ ...filters, cursor })}`),
    [filters.merchant_id, filters.from, filters.to],
  );
  return html`<h1>Batches</h1>
    <form class="row" role="search" aria-label="Filters" onSubmit=${(e) => {
      e.preventDefault();
      const f = new FormData(e.currentTarget);
      setFilters({
        merchant_id: String(f.get('merchant_id') || '').trim(),
        from: String(f.get('from') || ''),
        to: String(f.get('to') || ''),
      });
    }}>
      <${Field} id="bf-merchant" label="Merchant ID"><input id="bf-merchant" name="merchant_id" value=${filters.merchant_id} spellcheck=${false} /></${Field}>
      <${DateRangeFields} range=${filters} prefix="bf" />
      <button type="submit" class="secondary">Apply</button>
    </form>
    <h2>Newest first</h2>
    <${ErrorNotice} error=${list.error} />
    <${Table} caption="Bulk payout batches" rows=${list.rows} columns=${batchColumns(batchHref, true)} empty="No batches." />
    <${MoreButton} paged=${list} />`;
}

function BatchPage({ params: [merchantId, batchId] }) {
  const batchIdText = decodeURIComponent(batchId);
  const batch = useLoad(
    () => api('GET', `/admin/v1/batches/${enc(merchantId)}/${enc(batchIdText)}`),
    [merchantId, batchIdText],
  );
  return html`<h1>Batch ${batchIdText}</h1>
    <div class="actions"><button type="button" class="secondary" onClick=${batch.reload}>Refresh</button></div>
    <${ErrorNotice} error=${batch.error} />
    ${batch.data && html`<${BatchDetail} batch=${batch.data} payoutHref=${(id) => `#/payouts/${id}`} />`}`;
}

async function loadTimeline(kind, id) {
  try {
    return await api('GET', `/admin/v1/${kind}/${enc(id)}/timeline`);
  } catch (err) {
    if (err.status !== 404 || err.code !== 'route_not_found') throw err;
    // Without the timeline route: the webhook deliveries of this transaction with their attempts.
    const deliveries = await api('GET', `/admin/v1/webhooks/deliveries${qs({ subject_id: id, limit: 200 })}`);
    return { deliveries: deliveries.data };
  }
}

function PayoutDetail({ session, params: [id] }) {
  const payout = useLoad(() => api('GET', `/admin/v1/payouts/${enc(id)}`), [id]);
  const timeline = useLoad(() => loadTimeline('payouts', id), [id]);
  const p = payout.data;
  const reload = () => {
    payout.reload();
    timeline.reload();
  };
  return html`<h1>Payout</h1>
    <p class="id">${id}</p>
    <${ErrorNotice} error=${payout.error} />
    ${
      p &&
      html`<${PayoutFacts}
        p=${p}
        merchantLink=${idLink('merchants', p.merchant_id)}
        walletLink=${idLink('wallets', p.wallet_id)}
      />`
    }
    ${
      p &&
      p.status === 'PENDING' &&
      can(session, 'finance') &&
      html`<section class="card" aria-labelledby="resolve-h">
      <h2 id="resolve-h" style="margin-top:0">Resolve this PENDING payout</h2>
      <${ActionForm}
        label="Resolve payout"
        submit="Resolve"
        action=${async (form) => {
          const body = { status: String(form.get('status')) };
          const utr = String(form.get('utr_number') || '').trim();
          if (utr && body.status === 'SUCCESS') body.utr_number = utr;
          await api('POST', `/admin/v1/payouts/${enc(id)}/resolve`, body);
          reload();
        }}
      >
        <div class="row" style="margin-bottom:0.75rem">
          <${Field} id="r-status" label="Outcome">
            <select id="r-status" name="status"><option value="SUCCESS">SUCCESS</option><option value="FAILED">FAILED (refunded)</option></select>
          </${Field}>
          <${Field} id="r-utr" label="UTR (optional)"><input id="r-utr" name="utr_number" maxlength="40" /></${Field}>
        </div>
      </${ActionForm}>
    </section>`
    }
    ${
      p &&
      p.status === 'SUCCESS' &&
      can(session, 'finance') &&
      html`<section class="card" aria-labelledby="return-h">
      <h2 id="return-h" style="margin-top:0">Record a return by the bank</h2>
      <p>The bank sent this transfer's money back: the amount goes back to the wallet and the merchant is told why.</p>
      <${ActionForm}
        label="Return payout"
        submit="Return"
        danger=${true}
        action=${async (form) => {
          await api('POST', `/admin/v1/payouts/${enc(id)}/return`, { reason: String(form.get('reason') || '').trim() });
          reload();
        }}
      >
        <div class="row" style="margin-bottom:0.75rem">
          <${Field} id="rt-reason" label="Reason (the merchant sees it)">
            <input id="rt-reason" name="reason" required maxlength="255" placeholder="Beneficiary account closed" />
          </${Field}>
        </div>
      </${ActionForm}>
    </section>`
    }
    <${TimelineSection} timeline=${timeline} payout=${p} reload=${reload} />`;
}

function Collections() {
  const [filters, setFilters] = useState(EMPTY_FILTERS);
  const list = usePaged(
    (cursor) => api('GET', `/admin/v1/collections${qs({ ...filters, cursor })}`),
    [filters.status, filters.merchant_id, filters.from, filters.to],
  );
  return html`<h1>Collections</h1>
    <${Filters} statuses=${COLLECTION_STATUSES} filters=${filters} setFilters=${setFilters} />
    <h2>Newest first</h2>
    <${ErrorNotice} error=${list.error} />
    <${Table}
      caption="Collections"
      rows=${list.rows}
      columns=${[
        { label: 'Collection', id: true, render: (c) => idLink('collections', c.txnId) },
        { label: 'Merchant', render: merchantCell },
        { label: 'Sender id', render: (c) => c.senderId },
        { label: 'Status', render: (c) => html`<${Badge} value=${c.status} />` },
        { label: 'Amount', num: true, render: (c) => rupees(c.requestAmount || c.amount) },
        { label: 'Created', render: (c) => when(c.createdAt) },
      ]}
    />
    <${MoreButton} paged=${list} />`;
}

function CollectionDetail({ params: [id] }) {
  const timeline = useLoad(() => loadTimeline('collections', id), [id]);
  const found = useLoad(() => api('GET', `/admin/v1/collections/${enc(id)}`), [id]);
  const c = found.data;
  return html`<h1>Collection</h1>
    <p class="id">${id}</p>
    <${ErrorNotice} error=${found.error} />
    ${
      c &&
      html`<section class="card">
        <dl class="kv">
          <dt>Status</dt>
          <dd><${Badge} value=${c.status} /></dd>
          <dt>Amount</dt>
          <dd>${rupees(c.requestAmount || c.amount)}</dd>
          <dt>Sender id</dt>
          <dd>${c.senderId || c.sender_id}</dd>
          <dt>Merchant</dt>
          <dd>${idLink('merchants', c.merchant_id)}</dd>
          <dt>Payment page</dt>
          <dd>
            ${c.paymentUrl ? html`<a href=${c.paymentUrl} target="_blank" rel="noopener">${c.paymentUrl}</a>` : '—'}
          </dd>
          <dt>Created</dt>
          <dd>${when(c.createdAt)}</dd>
        </dl>
      </section>`
    }
    <h2>Timeline</h2>
    <${ErrorNotice} error=${timeline.error} />
    ${timeline.data && html`<${Timeline} events=${timelineEvents(timeline.data, c || { created_at: null })} />`}`;
}

function Webhooks({ session }) {
  const failed = usePaged(
    (cursor) => api('GET', `/admin/v1/webhooks/deliveries${qs({ state: 'failed', cursor })}`),
    [],
  );
  const recent = usePaged((cursor) => api('GET', `/admin/v1/webhooks/deliveries${qs({ cursor })}`), []);
  const [message, setMessage] = useState(null);
  const finance = can(session, 'finance');
  const reload = () => {
    failed.reload();
    recent.reload();
  };
  const columns = [
    { label: 'Event', render: (d) => d.type },
    {
      label: 'Transaction',
      id: true,
      render: (d) => idLink(d.subject_id.startsWith('PT') ? 'payouts' : 'collections', d.subject_id),
    },
    { label: 'State', render: (d) => html`<${Badge} value=${d.state} />` },
    { label: 'Attempts', num: true, render: (d) => d.attempt_count },
    { label: 'Last answer', render: (d) => (d.last_status ? `HTTP ${d.last_status}` : d.last_error || '—') },
    { label: 'Created', render: (d) => when(d.created_at) },
    ...(finance
      ? [
          {
            label: 'Action',
            render: (d) => html`<${ActionButton} className="secondary" label=${`Replay ${d.id}`}
            action=${async () => {
              await api('POST', `/admin/v1/webhooks/deliveries/${enc(d.id)}/replay`);
              setMessage(`Delivery ${d.id} queued again.`);
              reload();
            }}>Replay</${ActionButton}>`,
          },
        ]
      : []),
  ];
  return html`<h1>Webhook deliveries</h1>
    ${message && html`<${Notice}>${message}</${Notice}>`}
    ${
      finance &&
      html`<section class="card" aria-labelledby="bulk-h">
      <h2 id="bulk-h" style="margin-top:0">Replay every failed delivery of a merchant</h2>
      <${ActionForm}
        label="Bulk replay"
        submit="Replay failed"
        action=${async (form) => {
          // The picker's wall-clock time is IST, like every time the console shows, whatever the browser's zone.
          const since = istInstant(String(form.get('since'))).toISOString();
          const r = await api('POST', '/admin/v1/webhooks/deliveries/replay', {
            merchant_id: String(form.get('merchant_id')).trim(),
            since,
          });
          setMessage(`${r.replayed} failed deliveries queued again.`);
          reload();
        }}
      >
        <div class="row" style="margin-bottom:0.75rem">
          <${Field} id="b-m" label="Merchant ID"><input id="b-m" name="merchant_id" required spellcheck=${false} /></${Field}>
          <${Field} id="b-since" label="Created since (IST)"><input id="b-since" name="since" type="datetime-local" required /></${Field}>
        </div>
      </${ActionForm}>
    </section>`
    }
    <h2>Failed</h2>
    <${ErrorNotice} error=${failed.error} />
    <${Table} caption="Failed deliveries" rows=${failed.rows} columns=${columns} empty="No failed deliveries." />
    <${MoreButton} paged=${failed} />
    <h2>All, newest first</h2>
    <${Table} caption="All deliveries" rows=${recent.rows} columns=${columns} />
    <${MoreButton} paged=${recent} />`;
}

function Approvals({ session }) {
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

function Ledger() {
  const [result, setResult] = useState(null);
  return html`<h1>Ledger</h1>
    <p>Checks that every wallet's balance equals the sum of its ledger entries.</p>
    <div class="actions"><${ActionButton} action=${async () => setResult(await api('GET', '/admin/v1/ledger/verify'))}>Verify the ledger</${ActionButton}></div>
    ${
      result &&
      (result.ok
        ? html`<${Notice}>Ledger consistent: ${result.wallets_checked} wallets checked, no mismatch.</${Notice}>`
        : html`<${Notice} kind="error">${result.mismatches.length} mismatches in ${result.wallets_checked} wallets.</${Notice}>
          <${Table} caption="Mismatches" rows=${result.mismatches} columns=${[
            { label: 'Wallet', id: true, render: (m) => idLink('wallets', m.wallet_id) },
            { label: 'Balance', num: true, render: (m) => rupees(m.balance) },
            { label: 'Ledger sum', num: true, render: (m) => rupees(m.ledger_sum) },
          ]} />`)
    }`;
}

function Audit() {
  const list = usePaged((cursor) => api('GET', `/admin/v1/audit${qs({ cursor })}`), []);
  return html`<h1>Audit log</h1>
    <${ErrorNotice} error=${list.error} />
    <${Table}
      caption="Every operator action, newest first"
      rows=${list.rows}
      columns=${[
        { label: 'Time', render: (e) => when(e.at) },
        {
          label: 'Who',
          render: (e) =>
            html`${e.actor_name && e.actor_name !== e.actor ? `${e.actor_name} ` : ''}<span class="muted"
                >${e.actor}</span
              >`,
        },
        { label: 'Role', render: (e) => e.actor_role },
        { label: 'Action', render: (e) => e.action },
        { label: 'Target', id: true, render: (e) => e.target },
        {
          label: 'Outcome',
          // A counted row stands for that many refusals from one address within the minute.
          render: (e) => html`<${Badge} value=${e.outcome} /> ${e.http_status}${e.count > 1 ? ` × ${e.count}` : ''}`,
        },
        { label: 'From', render: (e) => e.client_address },
        { label: 'Detail', render: (e) => e.detail },
      ]}
    />
    <${MoreButton} paged=${list} />`;
}

function Operators({ session }) {
  const list = useLoad(() => api('GET', '/admin/v1/operators'), []);
  return html`<h1>Operators</h1>
    <section class="card" aria-labelledby="new-op">
      <h2 id="new-op" style="margin-top:0">New operator</h2>
      <${ActionForm}
        label="New operator"
        submit="Create operator"
        action=${async (form, el) => {
          await api('POST', '/admin/v1/operators', {
            email: String(form.get('email')),
            name: String(form.get('name') || '') || undefined,
            role: String(form.get('role')),
            password: String(form.get('password')),
          });
          el.reset();
          list.reload();
        }}
      >
        <div class="row" style="margin-bottom:0.75rem">
          <${Field} id="op-email" label="E-mail address"><input id="op-email" name="email" type="email" required autocomplete="off" spellcheck=${false} /></${Field}>
          <${Field} id="op-name" label="Name"><input id="op-name" name="name" /></${Field}>
          <${Field} id="op-role" label="Role"><select id="op-role" name="role">${OPERATOR_ROLES.map((r) => html`<option>${r}</option>`)}</select></${Field}>
          <${Field} id="op-pw" label="Initial password (10+ characters)"><input id="op-pw" name="password" type="password" minlength="10" required autocomplete="new-password" /></${Field}>
        </div>
      </${ActionForm}>
    </section>
    <${ErrorNotice} error=${list.error} />
    ${
      list.data &&
      html`<${Table}
        caption="Operators"
        rows=${list.data.data}
        columns=${[
          { label: 'Name', render: (o) => o.name },
          { label: 'E-mail', render: (o) => o.email },
          { label: 'Role', render: (o) => o.role },
          { label: 'State', render: (o) => html`<${Badge} value=${o.disabled ? 'suspended' : 'active'} />` },
          {
            label: 'Action',
            render: (o) =>
              o.operator_id === session.operator.operator_id
                ? html`<span class="muted">you</span>`
                : html`<${ActionButton} className="secondary" label=${`${o.disabled ? 'Enable' : 'Disable'} ${o.email}`}
                  action=${async () => {
                    await api('PATCH', `/admin/v1/operators/${enc(o.operator_id)}`, { disabled: !o.disabled });
                    list.reload();
                  }}>${o.disabled ? 'Enable' : 'Disable'}</${ActionButton}>`,
          },
        ]}
      />`
    }`;
}

export const operatorRoutes = [
  [/^\/$/, Overview],
  [/^\/merchants$/, Merchants],
  [/^\/merchants\/(MR[0-9A-Z]{26})$/, MerchantDetail],
  [/^\/wallets\/(WL[0-9A-Z]{26})$/, Wallet],
  [/^\/payouts$/, Payouts],
  [/^\/payouts\/(PT[0-9A-Z]{26})$/, PayoutDetail],
  [/^\/batches$/, Batches],
  [new RegExp(`^/batches/(MR[0-9A-Z]{26})/(${BATCH_ID})$`), BatchPage],
  [/^\/collections$/, Collections],
  [/^\/collections\/(CT[0-9A-Z]{26})$/, CollectionDetail],
  [/^\/webhooks$/, Webhooks],
  [/^\/approvals$/, Approvals],
  [/^\/ledger$/, Ledger],
  [/^\/reconciliation$/, Reconciliation],
  [/^\/bankfiles$/, BankFiles],
  [/^\/reconciliation\/(RR[0-9A-Z]{26})$/, ReconciliationRun],
  [/^\/audit$/, Audit],
  [/^\/operators$/, Operators],
];
