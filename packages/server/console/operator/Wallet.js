// One wallet for the operator: balance, money on hold and on lien, what can be spent, a credit (finance), its liens
// (WalletLiens), its virtual account and deposits (WalletDeposits), and the statement with CSV export.
import {
  ActionForm,
  api,
  ErrorNotice,
  Field,
  html,
  ShortId,
  Notice,
  qs,
  rupees,
  StatementTable,
  useLoad,
  useState,
} from '../lib.js';
import { StatementRange } from '../shared/StatementRange.js';
import { can } from './can.js';
import { idLink } from './idLink.js';
import { MerchantName } from './MerchantName.js';
import { WalletDeposits } from './WalletDeposits.js';
import { WalletLiens } from './WalletLiens.js';

const enc = encodeURIComponent;

export function Wallet({ session, params: [id] }) {
  const wallet = useLoad(() => api('GET', `/admin/v1/wallets/${enc(id)}`), [id]);
  const [range, setRange] = useState({ from: '', to: '' });
  const statement = useLoad(
    () => api('GET', `/admin/v1/wallets/${enc(id)}/statement${qs(range)}`),
    [id, range.from, range.to],
  );
  const [message, setMessage] = useState(null);
  const w = wallet.data;
  return html`<h1>Wallet</h1>
    <p class="id"><${ShortId} id=${id} /></p>
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
          <div class="metric-label">Available (balance − liens)</div>
          <div class="metric" data-testid="wallet-available">${rupees(w.available_balance)}</div>
          <div class="muted">${rupees(w.on_lien)} on lien</div>
        </div>
        <div class="card">
          <div class="metric-label">Merchant</div>
          <div class="metric-text" data-testid="wallet-merchant"><${MerchantName} id=${w.merchant_id} /></div>
          ${w.merchant_id ? html`<div>${idLink('merchants', w.merchant_id)}</div>` : ''}
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
    ${
      w &&
      w.merchant_id &&
      html`<${WalletLiens}
          session=${session}
          walletId=${id}
          onChanged=${() => {
            wallet.reload();
            statement.reload();
          }}
        />
        <${WalletDeposits} walletId=${id} virtualAccount=${w.virtual_account} />`
    }
    <h2>Statement</h2>
    <${StatementRange}
      statementUrl=${`/admin/v1/wallets/${enc(id)}/statement`}
      range=${range}
      setRange=${setRange}
      csvTestId="csv"
    />
    <${ErrorNotice} error=${statement.error} />
    ${
      statement.data &&
      html`<p class="muted">
          Credits ${rupees(statement.data.total_credits)} · debits ${rupees(statement.data.total_debits)}
        </p>
        <${StatementTable} statement=${statement.data} />`
    }`;
}
