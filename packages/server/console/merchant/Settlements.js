// The merchant's settlements (docs/merchant/settlements.md): its settlement account, which it sets or changes itself
// (a change holds settlements for 24 hours; the schedule and the reserve are the operator's), and its settlements,
// newest first, each to open with the collections it covers.
import {
  ActionForm,
  api,
  ErrorNotice,
  Field,
  html,
  MoreButton,
  Notice,
  qs,
  ShortId,
  Table,
  useLoad,
  usePaged,
  useState,
  when,
} from '../lib.js';
import { SettlementAccountFacts, settlementColumns } from '../shared/SettlementFacts.js';
import { ListFilters, NO_FILTERS } from './ListFilters.js';
import { MERCHANT_API } from './merchantApi.js';

function AccountForm({ account, onSaved }) {
  return html`<${ActionForm}
    label="Set the settlement account"
    submit=${account ? 'Change account' : 'Save account'}
    action=${async (form) => {
      const body = {
        account_number: String(form.get('account_number') || '').trim(),
        ifsc: String(form.get('ifsc') || '')
          .trim()
          .toUpperCase(),
        holder_name: String(form.get('holder_name') || '').trim(),
      };
      onSaved(await api('PUT', `${MERCHANT_API}/settlement`, body));
    }}
  >
    <div class="row" style="margin-bottom:0.75rem">
      <${Field} id="ms-number" label="Account number">
        <input id="ms-number" name="account_number" required pattern="[0-9A-Za-z]{1,34}" defaultValue=${account ? account.account_number : ''} />
      </${Field}>
      <${Field} id="ms-ifsc" label="IFSC">
        <input id="ms-ifsc" name="ifsc" required pattern="[A-Za-z]{4}0[A-Za-z0-9]{6}" defaultValue=${account ? account.ifsc : ''} />
      </${Field}>
      <${Field} id="ms-holder" label="Account holder">
        <input id="ms-holder" name="holder_name" required maxlength="140" defaultValue=${account ? account.holder_name : ''} />
      </${Field}>
    </div>
  </${ActionForm}>`;
}

function SettlementAccount() {
  const found = useLoad(
    () =>
      api('GET', `${MERCHANT_API}/settlement`).catch((err) => {
        if (err.status === 404) return { none: true };
        throw err;
      }),
    [],
  );
  const [message, setMessage] = useState(null);
  const account = found.data && !found.data.none ? found.data : null;
  return html`<h2 id="ms-account-h">Settlement account</h2>
    <section class="card" aria-labelledby="ms-account-h" data-testid="merchant-settlement">
      <${ErrorNotice} error=${found.error} />
      ${message && html`<${Notice}>${message}</${Notice}>`}
      ${
        found.data &&
        (account
          ? html`<${SettlementAccountFacts} a=${account} />`
          : html`<p data-testid="settlement-none">
              No settlement account yet: settlements are refused until you set one.
            </p>`)
      }
      ${
        found.data &&
        html`<h3>${account ? 'Change the account' : 'Set the account'}</h3>
          <p class="muted">
            A changed account holds your settlements for 24 hours, as banks do against account takeover. The schedule
            and any reserve are set by the operator.
          </p>
          <${AccountForm}
            key=${account ? account.updated_at : 'none'}
            account=${account}
            onSaved=${(a) => {
              setMessage(
                Date.parse(a.active_from) > Date.now()
                  ? `Settlement account saved: settlements are held until ${when(a.active_from)}.`
                  : 'Settlement account saved.',
              );
              found.reload();
            }}
          />`
      }
    </section>`;
}

export function Settlements() {
  const [filters, setFilters] = useState(NO_FILTERS);
  const list = usePaged(
    (cursor) => api('GET', `${MERCHANT_API}/settlements${qs({ from: filters.from, to: filters.to, cursor })}`),
    [filters.from, filters.to],
  );
  return html`<h1>Settlements</h1>
    <p class="muted">Your collections, net of their fees, paid to your settlement account.</p>
    <${SettlementAccount} />
    <h2>Your settlements</h2>
    <${ListFilters} filters=${filters} setFilters=${setFilters} />
    <${ErrorNotice} error=${list.error} />
    <${Table}
      caption="Your settlements"
      rows=${list.rows}
      empty="No settlements yet."
      columns=${settlementColumns(
        (s) => `#/settlements/${s.settlement_id}`,
        (s) => html`<${ShortId} id=${s.wallet_id} />`,
      )}
    />
    <${MoreButton} paged=${list} />`;
}
