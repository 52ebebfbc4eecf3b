// The operator's merchants: the list with search, and (admins) a new merchant with its credentials shown once.
import {
  ActionForm,
  api,
  Badge,
  ErrorNotice,
  Field,
  html,
  MoreButton,
  qs,
  rupees,
  ShortId,
  sumMoney,
  Table,
  usePaged,
  useState,
  when,
} from '../lib.js';
import { can } from './can.js';
import { CredentialsOnce } from './CredentialsOnce.js';

export function Merchants({ session }) {
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
