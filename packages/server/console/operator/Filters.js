// The filters of the operator's payout and collection lists (status, merchant, IST dates), applied with one button.
import { DateRangeFields, Field, html } from '../lib.js';

/** No filter: every status, every merchant, all dates. */
export const EMPTY_FILTERS = { status: '', merchant_id: '', from: '', to: '' };

/** The filter form; `statuses` are the list's own (payout or collection statuses). */
export function Filters({ statuses, filters, setFilters }) {
  return html`<form class="row" role="search" aria-label="Filters" onSubmit=${(e) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    setFilters({
      status: String(f.get('status') || ''),
      merchant_id: String(f.get('merchant_id') || '').trim(),
      from: String(f.get('from') || ''),
      to: String(f.get('to') || ''),
    });
  }}>
    <${Field} id="f-status" label="Status">
      <select id="f-status" name="status" value=${filters.status}>
        <option value="">Any</option>
        ${statuses.map((s) => html`<option value=${s}>${s}</option>`)}
      </select>
    </${Field}>
    <${Field} id="f-merchant" label="Merchant ID"><input id="f-merchant" name="merchant_id" value=${filters.merchant_id} spellcheck=${false} /></${Field}>
    <${DateRangeFields} range=${filters} prefix="f" />
    <button type="submit" class="secondary">Apply</button>
  </form>`;
}
