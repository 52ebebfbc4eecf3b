// Payouts as the operator and the merchant both see them: the list's columns and one payout's facts and timeline.
// The routes differ (admin or merchant console); what a payout shows does not.
import { Badge, ErrorNotice, html, maskAccount, rupees, ShortId, Timeline, when } from './lib.js';
import { timelineEvents } from './timeline.js';

const beneficiaryOf = (p) => p.beneficiary || p;

/** Who is paid, as a list shows it: the name, then the account masked to its last four digits. */
function BeneficiaryCell({ p }) {
  const b = beneficiaryOf(p);
  return html`${b.beneficiary_name || '—'}<span class="sub">${maskAccount(b.beneficiary_acc_number)}</span>`;
}

/** The merchant of a row, by name (its id on hover), for the operator's lists. */
export const merchantCell = (row) =>
  html`<a href=${`#/merchants/${row.merchant_id}`} title=${row.merchant_id}
    >${row.merchant_name || row.merchant_id}</a
  >`;

/** Columns of a payout list; `hrefOf(payout)` opens it, `withMerchant` adds the merchant (operator lists). */
export function payoutColumns(hrefOf, withMerchant) {
  return [
    { label: 'Payout', id: true, render: (p) => html`<${ShortId} id=${p.transaction_id} href=${hrefOf(p)} />` },
    ...(withMerchant ? [{ label: 'Merchant', render: merchantCell }] : []),
    { label: 'Beneficiary', render: (p) => html`<${BeneficiaryCell} p=${p} />` },
    { label: 'Mode', render: (p) => p.payment_mode || '—' },
    { label: 'Bank', render: (p) => beneficiaryOf(p).bank_name || beneficiaryOf(p).beneficiary_ifsc || '—' },
    { label: 'Status', render: (p) => html`<${Badge} value=${p.status} />` },
    { label: 'Amount', num: true, render: (p) => rupees(p.amount) },
    { label: 'Sender id', render: (p) => p.sender_id },
    { label: 'Created', render: (p) => when(p.timestamps ? p.timestamps.created_at : p.created_at) },
  ];
}

/** Everything known of one payout; `merchantLink` and `walletLink` render those ids (links for operators). */
export function PayoutFacts({ p, merchantLink, walletLink }) {
  const b = beneficiaryOf(p);
  return html`<section class="card">
    <dl class="kv" data-testid="payout-facts">
      <dt>Status</dt>
      <dd><${Badge} value=${p.status} /> ${p.status_message || ''}</dd>
      <dt>Amount</dt>
      <dd data-testid="payout-amount">${rupees(p.amount)}</dd>
      <dt>Mode</dt>
      <dd>${p.payment_mode || '—'}</dd>
      <dt>Beneficiary</dt>
      <dd>${b.beneficiary_name || '—'}</dd>
      <dt>Account</dt>
      <dd>${maskAccount(b.beneficiary_acc_number)}${b.beneficiary_ifsc ? ` · IFSC ${b.beneficiary_ifsc}` : ''}</dd>
      <dt>Bank</dt>
      <dd>${b.bank_name || '—'}</dd>
      <dt>Remarks</dt>
      <dd>${p.remarks || '—'}</dd>
      <dt>Sender id</dt>
      <dd>${p.sender_id}</dd>
      ${
        merchantLink
          ? html`<dt>Merchant</dt>
              <dd>${p.merchant_name ? html`${merchantCell(p)} ${merchantLink}` : merchantLink}</dd>`
          : ''
      }
      <dt>Wallet</dt>
      <dd>${walletLink || html`<${ShortId} id=${p.wallet_id} />`}</dd>
      <dt>Callback URL</dt>
      <dd>${p.callback_url || '—'}</dd>
      <dt>Connector</dt>
      <dd>${p.connector || p.rail || '—'}</dd>
      <dt>Rail reference</dt>
      <dd>${p.rail_reference || '—'}</dd>
      <dt>UTR</dt>
      <dd>${p.utr_number || '—'}</dd>
      ${
        p.returned_at &&
        html`<dt>Returned</dt>
          <dd>${when(p.returned_at)}: ${p.return_reason}</dd>`
      }
      <dt>Created</dt>
      <dd>${when(p.timestamps ? p.timestamps.created_at : p.created_at)}</dd>
      <dt>Updated</dt>
      <dd>${when(p.timestamps ? p.timestamps.updated_at : p.updated_at)}</dd>
    </dl>
  </section>`;
}

/** The timeline heading, a Refresh button and the events (status changes, webhook attempts, what is to come). */
export function TimelineSection({ timeline, payout, reload }) {
  return html`<h2>Timeline</h2>
    <div class="actions"><button type="button" class="secondary" onClick=${reload}>Refresh</button></div>
    <${ErrorNotice} error=${timeline.error} />
    ${timeline.data && payout && html`<${Timeline} events=${timelineEvents(timeline.data, payout)} />`}`;
}
