// A statement's range of IST days and its CSV export, as both the operator's wallet page and the merchant's
// statement page show it; only the statement's address differs (the admin API or the merchant console's).
import { Field, html, qs } from '../lib.js';

/**
 * From/To day inputs whose Show sets `range`, and an Export CSV link to `statementUrl` for that range
 * (`csvTestId`, when given, is the link's data-testid). The link is a plain download of the streamed CSV, so a month
 * of a busy wallet downloads whole where the table's JSON stops at 20,000 entries.
 */
export function StatementRange({ statementUrl, range, setRange, csvTestId }) {
  return html`<form class="row" onSubmit=${(e) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    setRange({ from: String(f.get('from') || ''), to: String(f.get('to') || '') });
  }}>
    <${Field} id="from" label="From (IST day)"><input id="from" name="from" type="date" /></${Field}>
    <${Field} id="to" label="To (IST day, inclusive)"><input id="to" name="to" type="date" /></${Field}>
    <button type="submit" class="secondary">Show</button>
    <a class="button secondary" data-testid=${csvTestId} href=${`${statementUrl}${qs({ ...range, format: 'csv' })}`} download
      title="The whole range, however many entries: the file is streamed (the table here shows at most 20,000)">Export CSV</a>
  </form>`;
}
