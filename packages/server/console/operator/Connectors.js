// The connectors card of the overview: each connector's routes and health, and a warning when the upstream
// account does not cover what merchants hold (docs/operator/connectors.md, "Reading the treasury").
import { api, ErrorNotice, html, Notice, rupees, useLoad } from '../lib.js';

/**
 * The figures of a coverage warning, as one string: htm drops whitespace that holds a line break next to an
 * interpolation, so the words around the amounts must not be split over lines of the template.
 */
const shortfall = (t) => `balance ${rupees(t.upstream_balance)} for ${rupees(t.owed)} owed (coverage ${t.coverage}).`;

/**
 * Each connector's routes and health; for the upstream, whether its account covers what merchants hold. The table
 * scrolls inside the card on a phone, as every table does.
 */
export function Connectors() {
  const list = useLoad(() => api('GET', '/admin/v1/connectors'), []);
  const connectors = list.data?.connectors ?? [];
  const short = connectors.filter((c) => c.treasury?.coverage && Number(c.treasury.coverage) < 1);
  return html`<section class="card" aria-labelledby="connectors-h" data-testid="connectors">
    <h2 id="connectors-h" style="margin-top:0">Connectors</h2>
    <${ErrorNotice} error=${list.error} />
    ${short.map(
      (c) => html`<${Notice} kind="warn">
        <p data-testid="coverage-warning">
          <strong>The ${c.name} account does not cover what merchants hold:</strong> ${shortfall(c.treasury)} Top it
          up before payouts wait on it.
        </p>
      </${Notice}>`,
    )}
    <div class="table-wrap" tabindex="0" role="region" aria-label="Connectors and their health">
      <table>
        <thead>
          <tr>
            <th>Connector</th>
            <th>Modes</th>
            <th>Health</th>
            <th>Balance</th>
            <th>Owed</th>
            <th>Coverage</th>
          </tr>
        </thead>
        <tbody>
          ${connectors.map(
            (c) =>
              html`<tr>
                <td>${c.name}</td>
                <td>${c.routes.join(', ') || '—'}</td>
                <td title=${c.last_failure || ''}>${c.healthy ? 'answering' : `failing: ${c.last_failure || ''}`}</td>
                <td class="num">${c.treasury ? rupees(c.treasury.upstream_balance) : '—'}</td>
                <td class="num">${c.treasury ? rupees(c.treasury.owed) : '—'}</td>
                <td class="num">${c.treasury?.coverage ?? '—'}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
  </section>`;
}
