// One bulk payout batch for the operator, found by its merchant and its batch id (unique per merchant only).
import { api, ErrorNotice, html, useLoad } from '../lib.js';
import { BatchDetail } from '../shared/BatchDetail.js';

const enc = encodeURIComponent;

export function BatchPage({ params: [merchantId, batchId] }) {
  const batchIdText = decodeURIComponent(batchId);
  const batch = useLoad(
    () => api('GET', `/admin/v1/batches/${enc(merchantId)}/${enc(batchIdText)}`),
    [merchantId, batchIdText],
  );
  return html`<h1>Batch ${batchIdText}</h1>
    <div class="actions"><button type="button" class="secondary" onClick=${batch.reload}>Refresh</button></div>
    <${ErrorNotice} error=${batch.error} />
    ${batch.data && html`<${BatchDetail} batch=${batch.data} payoutHref=${(id) => `#/payouts/${id}`} />`}`;
}
