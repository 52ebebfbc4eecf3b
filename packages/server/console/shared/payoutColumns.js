// The columns of a payout list, shared by the operator's and the merchant's lists: the routes differ, the columns do
// not (the operator's add the merchant).
import { Badge, html, IdText, AccountNumber, rupees, ShortId, when } from '../lib.js';
import { beneficiaryOf } from './beneficiaryOf.js';
import { merchantCell } from './merchantCell.js';
import { refundKind } from './refundKind.js';
import { UtrText } from './utrText.js';

/** Who is paid, as a list shows it: the name, then the account masked to its last four digits. */
function BeneficiaryCell({ p }) {
  const b = beneficiaryOf(p);
  return html`${b.beneficiary_name || '—'}<span class="sub"
      ><${AccountNumber} number=${b.beneficiary_acc_number}
    /></span>`;
}

/** Columns of a payout list; `hrefOf(payout)` opens it, `withMerchant` adds the merchant (operator lists). */
export function payoutColumns(hrefOf, withMerchant) {
  return [
    { label: 'Payout', id: true, render: (p) => html`<${ShortId} id=${p.transaction_id} href=${hrefOf(p)} />` },
    ...(withMerchant ? [{ label: 'Merchant', render: merchantCell }] : []),
    { label: 'Beneficiary', render: (p) => html`<${BeneficiaryCell} p=${p} />` },
    { label: 'Mode', render: (p) => p.payment_mode || '—' },
    { label: 'Bank', render: (p) => beneficiaryOf(p).bank_name || beneficiaryOf(p).beneficiary_ifsc || '—' },
    {
      label: 'Status',
      render: (p) =>
        html`<${Badge} value=${p.status} />${refundKind(p) ? html`<span class="sub">${refundKind(p)}</span>` : ''}`,
    },
    { label: 'Amount', num: true, render: (p) => rupees(p.amount) },
    { label: 'UTR', render: (p) => html`<${UtrText} p=${p} />` },
    { label: 'Sender id', render: (p) => html`<${IdText} text=${p.sender_id} />` },
    { label: 'Created', render: (p) => when(p.timestamps ? p.timestamps.created_at : p.created_at) },
  ];
}
