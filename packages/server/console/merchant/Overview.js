// The merchant's balance: each wallet with its money on hold and statement, and its own payouts of the last day.
import { api, ErrorNotice, html, PayoutChart, rupees, ShortId, useLoad } from '../lib.js';
import { MERCHANT_API } from './merchantApi.js';

export function Overview() {
  const o = useLoad(() => api('GET', `${MERCHANT_API}/overview`), []);
  const d = o.data;
  return html`<h1>Balance</h1>
    <${ErrorNotice} error=${o.error} />
    ${
      d &&
      html`<div class="cards">
          ${d.wallets.map(
            (w) =>
              html`<div class="card">
                <div class="metric-label">Wallet <${ShortId} id=${w.wallet_id} /></div>
                <div class="metric" data-testid="merchant-balance">${rupees(w.balance)}</div>
                <div class="muted">
                  ${rupees(w.on_hold)} on hold · <a href=${`#/statement/${w.wallet_id}`}>Statement</a>
                </div>
              </div>`,
          )}
        </div>
        <section class="card">
          <h2 style="margin-top:0">Your payouts, last 24 hours</h2>
          <${PayoutChart} hours=${d.stats.payouts_per_hour} />
        </section>`
    }`;
}
