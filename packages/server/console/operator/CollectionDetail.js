// One collection for the operator: the shared collection card with its merchant and payment page, and its timeline.
import { api, ErrorNotice, html, ShortId, Timeline, useLoad } from '../lib.js';
import { timelineEvents } from '../timeline.js';
import { CollectionFacts } from '../shared/CollectionFacts.js';
import { idLink } from './idLink.js';
import { loadTimeline } from './loadTimeline.js';

const enc = encodeURIComponent;

export function CollectionDetail({ params: [id] }) {
  const timeline = useLoad(() => loadTimeline('collections', id), [id]);
  const found = useLoad(() => api('GET', `/admin/v1/collections/${enc(id)}`), [id]);
  const c = found.data;
  return html`<h1>Collection</h1>
    <p class="id"><${ShortId} id=${id} /></p>
    <${ErrorNotice} error=${found.error} />
    ${
      c &&
      html`<${CollectionFacts}
        c=${c}
        rows=${html`<dt>Merchant</dt>
          <dd>${idLink('merchants', c.merchant_id)}</dd>
          <dt>Payment page</dt>
          <dd>
            ${c.paymentUrl ? html`<a href=${c.paymentUrl} target="_blank" rel="noopener">${c.paymentUrl}</a>` : '—'}
          </dd>`}
      />`
    }
    <h2>Timeline</h2>
    <${ErrorNotice} error=${timeline.error} />
    ${timeline.data && html`<${Timeline} events=${timelineEvents(timeline.data, c || { created_at: null })} />`}`;
}
