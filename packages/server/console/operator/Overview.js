// The operator's overview: the day's figures at a glance, the chart of payouts per status, the platform's wallets
// and the connectors.
import { api, ErrorNotice, html, PayoutChart, rupees, useLoad } from '../lib.js';
import { Connectors } from './Connectors.js';
import { PlatformWallets } from './PlatformWallets.js';

export function Overview() {
  const stats = useLoad(() => api('GET', '/admin/v1/stats'), []);
  const s = stats.data;
  return html`<h1>Overview</h1>
    <${ErrorNotice} error=${stats.error} />
    ${
      s &&
      html`<div class="cards">
          <div class="card">
            <div class="metric-label">Success rate (24 h)</div>
            <div class="metric" data-testid="success-rate">
              ${s.success_rate === null ? '—' : `${(s.success_rate * 100).toFixed(1)}%`}
            </div>
          </div>
          <div class="card">
            <div class="metric-label">Money on hold</div>
            <div class="metric">${rupees(s.money_on_hold)}</div>
            <div class="muted">${s.payouts_on_hold} open payouts</div>
          </div>
          <div class="card">
            <div class="metric-label">Webhook backlog</div>
            <div class="metric">${s.webhook_backlog.pending}</div>
            <div class="muted">waiting · <a href="#/webhooks">${s.webhook_backlog.failed} failed</a></div>
          </div>
        </div>
        <section class="card" aria-labelledby="chart-h">
          <h2 id="chart-h" style="margin-top:0">Payouts per status, last 24 hours</h2>
          <${PayoutChart} hours=${s.payouts_per_hour} />
        </section>`
    }
    <${PlatformWallets} />
    <${Connectors} />`;
}
