// One of the merchant's payouts, from the merchant's own routes.
import { api, ErrorNotice, html, ShortId, useLoad } from '../lib.js';
import { PayoutFacts } from '../shared/PayoutFacts.js';
import { TimelineSection } from '../shared/TimelineSection.js';
import { MERCHANT_API } from './merchantApi.js';

const enc = encodeURIComponent;

/** One of the merchant's payouts: the same facts and timeline an operator sees, from the merchant's own routes. */
export function PayoutPage({ params: [id] }) {
  const payout = useLoad(() => api('GET', `${MERCHANT_API}/payouts/${enc(id)}`), [id]);
  const timeline = useLoad(() => api('GET', `${MERCHANT_API}/payouts/${enc(id)}/timeline`), [id]);
  const reload = () => {
    payout.reload();
    timeline.reload();
  };
  return html`<h1>Payout</h1>
    <p class="id"><${ShortId} id=${id} /></p>
    <${ErrorNotice} error=${payout.error} />
    ${payout.data && html`<${PayoutFacts} p=${payout.data} />`}
    ${
      !payout.error &&
      html`<${TimelineSection} timeline=${timeline} payout=${payout.data} reload=${reload} audience="merchant" />`
    }`;
}
