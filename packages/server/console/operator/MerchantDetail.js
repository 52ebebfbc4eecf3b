// One merchant for the operator: its facts, wallets, pricing plan and settlement (set by finance); admins suspend or
// reactivate it, rotate its keys and webhook secret, open wallets, and set its limits, UPI details, beneficiary
// verification and default scheme.
import {
  ActionButton,
  ActionForm,
  api,
  Badge,
  ErrorNotice,
  Field,
  html,
  Notice,
  rupees,
  ShortId,
  Table,
  useLoad,
  useState,
  when,
} from '../lib.js';
import { can } from './can.js';
import { CredentialsOnce } from './CredentialsOnce.js';
import { idLink } from './idLink.js';
import { MerchantSettlement } from './MerchantSettlement.js';
import { PricingPlan } from './PricingPlan.js';

const enc = encodeURIComponent;

export function MerchantDetail({ session, params: [id] }) {
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
  return html`<h1>Merchant ${d ? d.name : ''}</h1>
    <${ErrorNotice} error=${m.error} />
    ${message && html`<${Notice}>${message}</${Notice}>`}
    ${secret && html`<${CredentialsOnce} creds=${secret} onDone=${() => setSecret(null)} />`}
    ${
      d &&
      html`<section class="card">
          <dl class="kv">
            <dt>ID</dt>
            <dd><${ShortId} id=${d.merchant_id} /></dd>
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
        <${PricingPlan} session=${session} merchantId=${id} />
        <${MerchantSettlement} session=${session} merchantId=${id} wallets=${d.wallets} onSettled=${m.reload} />
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
