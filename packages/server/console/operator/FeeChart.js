// Fees per IST day as bars in inline SVG, drawn by the page itself (no chart library), with a text summary for
// screen readers. The heights are drawn from paise; the amounts shown are the server's decimal text.
import { html, rupees } from '../lib.js';

/** Paise of a decimal amount as a number, for drawing only (a bar's height, never a sum shown). */
const paiseOf = (text) => {
  const m = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(String(text ?? '0'));
  if (!m) return 0;
  const v = Number(m[2]) * 100 + Number((m[3] || '').padEnd(2, '0'));
  return m[1] ? -v : v;
};

/** 2026-11-05 → 5 Nov: the axis names days briefly (the bars' titles and the table have the full date). */
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const dayLabel = (day) => {
  const [, m, d] = day.split('-');
  return `${Number(d)} ${MONTHS[Number(m) - 1] || m}`;
};

const BAR = '#1f5fd6';
const INK = '#5b6478';

/** `days` are the report's rows grouped by day ({key, count, fees, tax}), oldest first, zeros included. */
export function FeeChart({ days }) {
  const values = days.map((d) => paiseOf(d.fees));
  const top = Math.max(1, ...values);
  const bottom = Math.min(0, ...values);
  const W = 720;
  const H = 240;
  const pad = { l: 72, r: 8, t: 10, b: 42 };
  const bw = (W - pad.l - pad.r) / Math.max(1, days.length);
  const y = (v) => pad.t + (H - pad.t - pad.b) * ((top - v) / (top - bottom));
  // At most about eight day names under the axis, whatever the range.
  const step = Math.max(1, Math.ceil(days.length / 8));
  const highest = days.reduce((best, d, i) => (values[i] > (best ? paiseOf(best.fees) : 0) ? d : best), null);
  const label = days.length
    ? `Fees per IST day from ${days[0].key} to ${days[days.length - 1].key}: ${
        highest ? `highest ${rupees(highest.fees)} on ${highest.key}` : 'no fees'
      }.`
    : 'No days in the range.';
  return html`<div class="chart" data-testid="fee-chart">
    <svg viewBox=${`0 0 ${W} ${H}`} role="img" aria-label=${label}>
      <line x1=${pad.l} x2=${W - pad.r} y1=${y(0)} y2=${y(0)} stroke="#aab3c5" />
      <text x=${pad.l - 6} y=${y(top) + 4} text-anchor="end" font-size="11" fill=${INK}>
        ${rupees((top / 100).toFixed(2))}
      </text>
      <text x=${pad.l - 6} y=${y(0) + 4} text-anchor="end" font-size="11" fill=${INK}>₹0</text>
      ${days.map((d, i) => {
        const v = values[i];
        if (!v) return null;
        const y0 = y(Math.max(0, v));
        // A bar fills most of its day's slot, but no wider than 48 units: a short range is not one block.
        const width = Math.max(1, Math.min(48, bw * 0.8));
        return html`<rect
          x=${pad.l + i * bw + (bw - width) / 2}
          y=${y0}
          width=${width}
          height=${Math.max(1, Math.abs(y(v) - y(0)))}
          fill=${BAR}
          data-day=${d.key}
        >
          <title>${`${d.key}: fees ${rupees(d.fees)}, GST ${rupees(d.tax)}, ${d.count} transactions`}</title>
        </rect>`;
      })}
      ${days.map((d, i) =>
        i % step === 0
          ? html`<text x=${pad.l + i * bw + bw / 2} y=${H - 24} text-anchor="middle" font-size="11" fill=${INK}>
              ${dayLabel(d.key)}
            </text>`
          : null,
      )}
      <text x=${pad.l + (W - pad.l - pad.r) / 2} y=${H - 4} text-anchor="middle" font-size="12" fill="#3a4254">
        Day (IST)
      </text>
      <text
        transform=${`translate(14 ${pad.t + (H - pad.t - pad.b) / 2}) rotate(-90)`}
        text-anchor="middle"
        font-size="12"
        fill="#3a4254"
      >
        Fees (₹)
      </text>
    </svg>
  </div>`;
}
