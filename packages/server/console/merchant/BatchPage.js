// One of the merchant's bulk payout batches, looked up under the signed-in merchant only.
import { api, ErrorNotice, html, useLoad } from '../lib.js';
import { BatchDetail } from '../shared/BatchDetail.js';
import { MERCHANT_API } from './merchantApi.js';

const enc = encodeURIComponent;

export function BatchPage({ params: [id] }) {
  const batchId = decodeURIComponent(id);
  const batch = useLoad(() => api('GET', `${MERCHANT_API}/batches/${enc(batchId)}`), [batchId]);
  return html`<h1>Batch ${batchId}</h1>
    <div class="actions"><button type="button" class="secondary" onClick=${batch.reload}>Refresh</button></div>
    <${ErrorNotice} error=${batch.error} />
    ${batch.data && html`<${BatchDetail} batch=${batch.data} payoutHref=${(pid) => `#/payouts/${pid}`} />`}`;
}
