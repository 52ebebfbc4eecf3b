// The merchant's balance: each wallet with its money on hold, what the operator holds on it (liens, shown as "On hold
// by the operator" with the amount and reason, never who placed them), what can be spent, and its statement; then
// its own payouts of the last day.
import { api, ErrorNotice, html, PayoutChart, rupees, ShortId, useLoad, when } from '../lib.js';
import { MERCHANT_API } from './merchantApi.js';

/** The operator's holds on one wallet: what each keeps from being spent, and why. */
function Holds({ wallet: w }) {
  if (!w.holds || w.holds.length === 0) return null;
  return html`<div class="holds" data-testid="merchant-holds">
    <div class="metric-label">On hold by the operator</div>
    <ul>
      ${w.holds.map(
        (h) =>
          html`<li data-testid="merchant-hold">
            <strong>${rupees(h.amount)}</strong> · ${h.reason}
            <span class="muted"> · since ${when(h.since)}${h.expires_at ? `, until ${when(h.expires_at)}` : ''}</span>
          </li>`,
      )}
    </ul>
  </div>`;
}

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
                ${
                  w.on_lien && w.on_lien !== '0.00'
                    ? html`<div data-testid="merchant-available">
                        Available to spend <strong>${rupees(w.available_balance)}</strong>
                        <span class="muted">(${rupees(w.on_lien)} on hold by the operator)</span>
                      </div>`
                    : ''
                }
                <${Holds} wallet=${w} />
              </div>`,
          )}
        </div>
        <section class="card">
          <h2 style="margin-top:0">Your payouts, last 24 hours</h2>
          <${PayoutChart} hours=${d.stats.payouts_per_hour} />
        </section>`
    }`;
}
