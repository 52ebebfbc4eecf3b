// One payout's detail card, shared by the operator's and the merchant's payout pages: the routes differ (admin or
// merchant console); what a payout shows does not.
import { Badge, html, IdText, AccountNumber, rupees, ShortId, when } from '../lib.js';
import { beneficiaryOf } from './beneficiaryOf.js';
import { merchantCell } from './merchantCell.js';
import { refundKind } from './refundKind.js';
import { UtrText } from './utrText.js';

/**
 * Everything known of one payout; `merchantLink` and `walletLink` render those ids (links for operators). Without
 * `merchantLink` it is the merchant's view: its words, not the operator's (no connector, no rail reference).
 */
export function PayoutFacts({ p, merchantLink, walletLink }) {
  const b = beneficiaryOf(p);
  return html`<section class="card">
    <dl class="kv" data-testid="payout-facts">
      <dt>Status</dt>
      <dd>
        <${Badge} value=${p.status} />
        ${refundKind(p) ? html`<strong data-testid="refund-kind">${refundKind(p)}</strong> · ` : ''}
        ${p.status_message || ''}
      </dd>
      <dt>Amount</dt>
      <dd data-testid="payout-amount">${rupees(p.amount)}</dd>
      <dt>Fees</dt>
      <dd data-testid="payout-fees">${rupees(p.fees)}</dd>
      <dt>GST</dt>
      <dd data-testid="payout-tax">${rupees(p.tax)}</dd>
      <dt>Mode</dt>
      <dd>${p.payment_mode || '—'}</dd>
      <dt>Beneficiary</dt>
      <dd>${b.beneficiary_name || '—'}</dd>
      <dt>Account</dt>
      <dd data-testid="payout-account">
        <${AccountNumber}
          number=${b.beneficiary_acc_number}
        />${b.beneficiary_ifsc ? ` · IFSC ${b.beneficiary_ifsc}` : ''}
      </dd>
      <dt>Bank</dt>
      <dd>${b.bank_name || '—'}</dd>
      <dt>Remarks</dt>
      <dd>${p.remarks || '—'}</dd>
      <dt>Sender id</dt>
      <dd><${IdText} text=${p.sender_id} /></dd>
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
      ${
        // The connector and its reference are the operator's words and concerns; a merchant reads the UTR.
        merchantLink
          ? html`<dt>Connector</dt>
              <dd>${p.connector || p.rail || '—'}</dd>
              <dt>Rail reference</dt>
              <dd>${p.rail_reference || '—'}</dd>`
          : ''
      }
      <dt>UTR</dt>
      <dd><${UtrText} p=${p} /></dd>
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
