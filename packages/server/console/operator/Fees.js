// The platform's fees and GST (docs/operator/charging-merchants.md): what it earned over a range of IST days, net of
// refunds, by day, merchant or product, with the totals, a chart of fees per day and the report as CSV.
import { api, DateRangeFields, ErrorNotice, html, qs, rupees, Table, useLoad, useState } from '../lib.js';
import { FeeChart } from './FeeChart.js';

const FEES = '/admin/v1/platform/fees';

/** The group switch: how the table's rows are keyed (the chart is always per day). */
const GROUPS = [
  ['day', 'Day'],
  ['merchant', 'Merchant'],
  ['product', 'Product'],
];

/** A row's key: the IST day, the product, or the merchant's id linking to its page. */
const keyCell = (group, key) => (group === 'merchant' ? html`<a href=${`#/merchants/${key}`}>${key}</a>` : key);

export function Fees() {
  const [range, setRange] = useState({ from: '', to: '' });
  const [group, setGroup] = useState('day');
  // One read per day for the chart, and the table's grouping when it is another (the same read when it is per day).
  const load = useLoad(async () => {
    const daily = api('GET', `${FEES}${qs({ ...range, group: 'day' })}`);
    const grouped = group === 'day' ? daily : api('GET', `${FEES}${qs({ ...range, group })}`);
    const [days, report] = await Promise.all([daily, grouped]);
    return { days, report };
  }, [range.from, range.to, group]);
  const d = load.data;
  const csv = `${FEES}${qs({ ...range, group, format: 'csv' })}`;
  const label = (GROUPS.find(([g]) => g === group) || GROUPS[0])[1];
  return html`<h1>Fees</h1>
    <p class="muted">
      Fees and GST the platform charged merchants, net of what was refunded, by IST day (both days inclusive; by default
      this month so far).
    </p>
    <form
      class="row"
      role="search"
      aria-label="Date range"
      onSubmit=${(e) => {
        e.preventDefault();
        const f = new FormData(e.currentTarget);
        setRange({ from: String(f.get('from') || ''), to: String(f.get('to') || '') });
      }}
    >
      <${DateRangeFields} range=${range} prefix="fees" />
      <button type="submit" class="secondary">Show</button>
      <a class="button secondary" href=${csv} download data-testid="fees-csv">Download CSV</a>
    </form>
    <div class="group-switch" role="group" aria-label="Group by">
      ${GROUPS.map(
        ([g, text]) =>
          html`<button
            type="button"
            class=${group === g ? '' : 'secondary'}
            aria-pressed=${group === g}
            onClick=${() => setGroup(g)}
          >
            By ${text.toLowerCase()}
          </button>`,
      )}
    </div>
    <${ErrorNotice} error=${load.error} />
    ${
      d &&
      html`<p data-testid="fees-window">${d.report.from} to ${d.report.to} (IST)</p>
        <div class="cards" data-testid="fees-total">
          <div class="card">
            <div class="metric-label">Fees earned</div>
            <div class="metric" data-testid="fees-total-fees">${rupees(d.report.total.fees)}</div>
          </div>
          <div class="card">
            <div class="metric-label">GST collected</div>
            <div class="metric" data-testid="fees-total-tax">${rupees(d.report.total.tax)}</div>
          </div>
          <div class="card">
            <div class="metric-label">Transactions charged</div>
            <div class="metric" data-testid="fees-total-count">${d.report.total.count}</div>
          </div>
        </div>
        <section class="card" aria-labelledby="fee-chart-h">
          <h2 id="fee-chart-h" style="margin-top:0">Fees per day</h2>
          <${FeeChart} days=${d.days.rows} />
        </section>
        <${Table}
          caption=${`Fees and GST by ${label.toLowerCase()}`}
          rows=${[...d.report.rows, { total: true, key: 'Total', ...d.report.total }]}
          rowClass=${(r) => (r.total ? 'summary' : '')}
          empty="No fees in this range."
          columns=${[
            { label, id: group === 'merchant', render: (r) => (r.total ? r.key : keyCell(group, r.key)) },
            { label: 'Transactions', num: true, render: (r) => r.count },
            { label: 'Fees', num: true, render: (r) => rupees(r.fees) },
            { label: 'GST', num: true, render: (r) => rupees(r.tax) },
          ]}
        />`
    }`;
}
