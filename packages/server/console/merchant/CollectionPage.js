// One of the merchant's collections: the shared collection card, with its payment page and its QR code for a payer in
// front of the merchant.
import { api, ErrorNotice, html, ShortId, useLoad } from '../lib.js';
import { CollectionFacts } from '../shared/CollectionFacts.js';
import { MERCHANT_API } from './merchantApi.js';

const enc = encodeURIComponent;

/** One collection with its QR (the UPI intent link) and its payment page, for a payer in front of the merchant. */
export function CollectionPage({ params: [id] }) {
  const found = useLoad(() => api('GET', `${MERCHANT_API}/collections/${enc(id)}`), [id]);
  const c = found.data;
  return html`<h1>Collection</h1>
    <p class="id"><${ShortId} id=${id} /></p>
    <${ErrorNotice} error=${found.error} />
    ${
      c &&
      html`<div class="cards">
        <${CollectionFacts} c=${c}>
          ${
            c.paymentUrl &&
            html`<div class="actions">
              <a class="button" href=${c.paymentUrl} target="_blank" rel="noopener">Open the payment page</a>
            </div>`
          }
        </${CollectionFacts}>
        <section class="card qr-card" aria-labelledby="qr-h">
          <h2 id="qr-h" style="margin-top:0">Scan to pay with any UPI app</h2>
          <img
            class="qr"
            src=${`${MERCHANT_API}/collections/${enc(id)}/qr`}
            alt=${`UPI QR code for collection ${id}`}
            width="232"
            height="232"
          />
        </section>
      </div>`
    }`;
}
