// The platform's own wallets on the overview (docs/operator/charging-merchants.md): fees earned, GST collected and
// payable to the government, and amounts recovered from merchants. They belong to no merchant.
import { api, ErrorNotice, html, rupees, useLoad } from '../lib.js';

const KINDS = {
  fees: ['Fees earned', 'the platform’s income from pricing plans'],
  gst: ['GST collected', 'payable to the government'],
  recovery: ['Recovered', 'from merchants (liens enforced)'],
};

export function PlatformWallets() {
  const found = useLoad(() => api('GET', '/admin/v1/platform/wallets'), []);
  return html`<section aria-labelledby="platform-wallets-h">
    <h2 id="platform-wallets-h">Platform wallets</h2>
    <${ErrorNotice} error=${found.error} />
    ${
      found.data &&
      html`<div class="cards" data-testid="platform-wallets">
        ${found.data.wallets.map(
          (w) =>
            html`<div class="card" data-kind=${w.kind}>
              <div class="metric-label">${(KINDS[w.kind] || [w.kind])[0]}</div>
              <div class="metric" data-testid=${`platform-wallet-${w.kind}`}>${rupees(w.balance)}</div>
              <div class="muted">${w.wallet_id}${KINDS[w.kind] ? ` · ${KINDS[w.kind][1]}` : ''}</div>
            </div>`,
        )}
        ${
          found.data.suspense &&
          html`<div class="card" data-kind="suspense">
            <div class="metric-label">In suspense</div>
            <div class="metric" data-testid="platform-wallet-suspense">${rupees(found.data.suspense.balance)}</div>
            <div class="muted">${found.data.suspense.wallet_id} · deposits on their way back to their senders</div>
          </div>`
        }
      </div>`
    }
  </section>`;
}
