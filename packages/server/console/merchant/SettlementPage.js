// One of the merchant's settlements, looked up under the signed-in merchant only: its facts, the payout that paid it,
// the collections it covers and its CSV report.
import { api, ErrorNotice, html, ShortId, useLoad } from '../lib.js';
import { SettlementFacts } from '../shared/SettlementFacts.js';
import { MERCHANT_API } from './merchantApi.js';

const enc = encodeURIComponent;

export function SettlementPage({ params: [id] }) {
  const url = `${MERCHANT_API}/settlements/${enc(id)}`;
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
        wallet=${html`<${ShortId} id=${s.wallet_id} href=${`#/statement/${s.wallet_id}`} />`}
        payout=${html`<${ShortId} id=${s.payout_id} href=${`#/payouts/${s.payout_id}`} />`}
      />`
    }`;
}
