// A payout's timeline as both the operator's and the merchant's payout pages show it, with a Refresh button.
import { ErrorNotice, html, Timeline } from '../lib.js';
import { timelineEvents } from '../timeline.js';

/** The timeline heading, a Refresh button and the events (status changes, webhook attempts, what is to come). */
export function TimelineSection({ timeline, payout, reload, audience }) {
  return html`<h2>Timeline</h2>
    <div class="actions"><button type="button" class="secondary" onClick=${reload}>Refresh</button></div>
    <${ErrorNotice} error=${timeline.error} />
    ${timeline.data && payout && html`<${Timeline} events=${timelineEvents(timeline.data, payout, audience)} />`}`;
}
