// One collection's detail card, shared by the operator's and the merchant's collection pages: both routes answer the
// same collection (adminCollectionView), so the card is one; each side adds its own rows and actions.
import { Badge, html, rupees, when } from '../lib.js';

/**
 * The status, amount, fees and GST ("0.00" until it succeeds), sender id and creation time of one collection. `rows`
 * (more <dt>/<dd> pairs, such as the operator's merchant and payment page) come before Created; `children`
 * (actions) follow the list.
 */
export function CollectionFacts({ c, rows, children }) {
  return html`<section class="card">
    <dl class="kv" data-testid="collection-facts">
      <dt>Status</dt>
      <dd><${Badge} value=${c.status} /></dd>
      <dt>Amount</dt>
      <dd>${rupees(c.requestAmount || c.amount)}</dd>
      <dt>Fees</dt>
      <dd data-testid="collection-fees">${rupees(c.fees)}</dd>
      <dt>GST</dt>
      <dd data-testid="collection-tax">${rupees(c.tax)}</dd>
      <dt>Sender id</dt>
      <dd>${c.senderId || c.sender_id}</dd>
      ${rows}
      <dt>Created</dt>
      <dd>${when(c.createdAt)}</dd>
    </dl>
    ${children}
  </section>`;
}
