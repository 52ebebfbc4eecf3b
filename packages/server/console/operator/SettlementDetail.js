// One settlement for the operator: its facts, the payout that paid it (linked), the collections it covers and its
// CSV report.
import { api, ErrorNotice, html, ShortId, useLoad } from '../lib.js';
import { SettlementFacts } from '../shared/SettlementFacts.js';
import { idLink } from './idLink.js';

const enc = encodeURIComponent;

export function SettlementDetail({ params: [id] }) {
  const url = `/admin/v1/settlements/${enc(id)}`;
  const found = useLoad(() => api('GET', url), [id]);
  const s = found.data;
  return html`<h1>Settlement</h1>
    <p class="id"><${ShortId} id=${id} /></p>
    <p><a href="#/settlements">All settlements</a></p>
    <${ErrorNotice} error=${found.error} />
    ${
      s &&
      html`<${SettlementFacts}
        s=${s}
        url=${url}
        merchant=${idLink('merchants', s.merchant_id)}
        wallet=${idLink('wallets', s.wallet_id)}
        payout=${idLink('payouts', s.payout_id)}
      />`
    }`;
}
