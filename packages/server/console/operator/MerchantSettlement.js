// A merchant's settlement on its page (docs/operator/settlements.md): the account (number, IFSC, holder, bank), the
// schedule and reserve, whether a changed account still holds settlements; finance sets them (a changed account holds
// settlements for 24 hours) and settles a wallet now.
import { ActionForm, api, ErrorNotice, Field, html, Notice, rupees, useLoad, useState, when } from '../lib.js';
import { SettlementAccountFacts } from '../shared/SettlementFacts.js';
import { can } from './can.js';

const enc = encodeURIComponent;

/** The body of PUT /admin/v1/merchants/{id}/settlement from the form: `at` with daily only, the reserve when set. */
function accountBody(form) {
  const body = {
    account_number: String(form.get('account_number') || '').trim(),
    ifsc: String(form.get('ifsc') || '')
      .trim()
      .toUpperCase(),
    holder_name: String(form.get('holder_name') || '').trim(),
    schedule: String(form.get('schedule') || 'manual'),
  };
  if (body.schedule === 'daily') body.at = String(form.get('at') || '');
  const percent = String(form.get('reserve_percent') || '').trim();
  if (percent && Number(percent) > 0) {
    body.reserve_percent = percent;
    body.reserve_days = Number(form.get('reserve_days') || 0);
  }
  return body;
}

function AccountForm({ merchantId, account, onSaved }) {
  const [schedule, setSchedule] = useState(account ? account.schedule : 'manual');
  return html`<${ActionForm}
    label="Set the settlement account"
    submit="Save settlement account"
    action=${async (form) => {
      onSaved(await api('PUT', `/admin/v1/merchants/${enc(merchantId)}/settlement`, accountBody(form)));
    }}
  >
    <div class="row">
      <${Field} id="sa-number" label="Account number">
        <input id="sa-number" name="account_number" required pattern="[0-9A-Za-z]{1,34}" defaultValue=${account ? account.account_number : ''} />
      </${Field}>
      <${Field} id="sa-ifsc" label="IFSC">
        <input id="sa-ifsc" name="ifsc" required pattern="[A-Za-z]{4}0[A-Za-z0-9]{6}" defaultValue=${account ? account.ifsc : ''} />
      </${Field}>
      <${Field} id="sa-holder" label="Account holder">
        <input id="sa-holder" name="holder_name" required maxlength="140" defaultValue=${account ? account.holder_name : ''} />
      </${Field}>
    </div>
    <div class="row" style="margin:0.75rem 0">
      <${Field} id="sa-schedule" label="Schedule">
        <select id="sa-schedule" name="schedule" value=${schedule} onChange=${(e) => setSchedule(e.currentTarget.value)}>
          <option value="manual">manual</option>
          <option value="daily">daily (IST)</option>
          <option value="instant">instant</option>
        </select>
      </${Field}>
      ${
        schedule === 'daily' &&
        html`<${Field} id="sa-at" label="Daily at (IST)">
          <input id="sa-at" name="at" type="time" required defaultValue=${(account && account.at) || '11:00'} />
        </${Field}>`
      }
      <${Field} id="sa-reserve" label="Reserve (%)">
        <input id="sa-reserve" name="reserve_percent" inputmode="decimal" pattern="[0-9]{1,3}(\\.[0-9]{1,2})?"
          defaultValue=${account && account.reserve_percent !== '0.00' ? account.reserve_percent : ''} />
      </${Field}>
      <${Field} id="sa-days" label="Reserve kept for (days)">
        <input id="sa-days" name="reserve_days" type="number" min="0" max="365" step="1"
          defaultValue=${account && account.reserve_days ? account.reserve_days : ''} />
      </${Field}>
    </div>
  </${ActionForm}>`;
}

/** Settle one of the merchant's wallets now: everything settleable, or an amount. */
function SettleNow({ wallets, onSettled }) {
  return html`<${ActionForm}
    label="Settle now"
    submit="Settle now"
    action=${async (form) => {
      const body = { wallet_id: String(form.get('wallet_id')) };
      const amount = String(form.get('amount') || '').trim();
      if (amount) body.amount = amount;
      onSettled(await api('POST', '/admin/v1/settlements', body));
    }}
  >
    <div class="row" style="margin-bottom:0.75rem">
      <${Field} id="sn-wallet" label="Wallet">
        <select id="sn-wallet" name="wallet_id">
          ${wallets.map((w) => html`<option value=${w.wallet_id}>${w.wallet_id} (${rupees(w.balance)})</option>`)}
        </select>
      </${Field}>
      <${Field} id="sn-amount" label="Amount (₹; empty: everything settleable)">
        <input id="sn-amount" name="amount" inputmode="decimal" pattern="[0-9]+(\\.[0-9]{1,2})?" />
      </${Field}>
    </div>
  </${ActionForm}>`;
}

export function MerchantSettlement({ session, merchantId, wallets, onSettled }) {
  const found = useLoad(
    () =>
      api('GET', `/admin/v1/merchants/${enc(merchantId)}/settlement`).catch((err) => {
        if (err.status === 404) return { none: true };
        throw err;
      }),
    [merchantId],
  );
  const [message, setMessage] = useState(null);
  const account = found.data && !found.data.none ? found.data : null;
  const finance = can(session, 'finance');
  return html`<h2 id="settlement-h">Settlement</h2>
    <section class="card" aria-labelledby="settlement-h" data-testid="merchant-settlement">
      <${ErrorNotice} error=${found.error} />
      ${message && html`<${Notice}>${message}</${Notice}>`}
      ${
        found.data &&
        (account
          ? html`<${SettlementAccountFacts} a=${account} />`
          : html`<p data-testid="settlement-none">
              No settlement account: the merchant's settlements are refused until one is set.
            </p>`)
      }
      ${
        found.data &&
        (finance
          ? html`<h3>${account ? 'Change the account or schedule' : 'Set the settlement account'}</h3>
              <p class="muted">
                Changing the number, IFSC or holder holds settlements for 24 hours; the schedule and reserve alone do
                not. Verified with the bank first when the merchant requires beneficiary verification.
              </p>
              <${AccountForm}
                key=${account ? account.updated_at : 'none'}
                merchantId=${merchantId}
                account=${account}
                onSaved=${(a) => {
                  setMessage(
                    Date.parse(a.active_from) > Date.now()
                      ? `Settlement account saved: held until ${when(a.active_from)}.`
                      : 'Settlement account saved.',
                  );
                  found.reload();
                }}
              />
              <h3>Settle now</h3>
              <p class="muted">
                Pays the wallet's settleable collections (net of fees, liens and the reserve) to the account now, as a
                payout.
              </p>
              <${SettleNow}
                key=${account ? account.updated_at : 'none'}
                wallets=${wallets}
                onSettled=${(s) => {
                  setMessage(
                    html`Settlement <a href=${`#/settlements/${s.settlement_id}`}>${s.settlement_id}</a> of
                      ${rupees(s.amount)} opened (${s.collection_count} collections).`,
                  );
                  onSettled();
                }}
              />`
          : html`<p class="muted">A finance operator sets the settlement account and settles a wallet.</p>`)
      }
    </section>`;
}
