// The filters of the merchant's payout, batch and collection lists (no merchant field: the list is the merchant's).
import { DateRangeFields, Field, html } from '../lib.js';

/** No filter: every status, all dates. */
export const NO_FILTERS = { status: '', from: '', to: '' };

/** The IST date range of a list (and its status, where it has one), applied with one button. */
export function ListFilters({ filters, setFilters, statuses }) {
  return html`<form
    class="row"
    role="search"
    aria-label="Filters"
    onSubmit=${(e) => {
      e.preventDefault();
      const f = new FormData(e.currentTarget);
      setFilters({
        status: String(f.get('status') || ''),
        from: String(f.get('from') || ''),
        to: String(f.get('to') || ''),
      });
    }}
  >
    ${
      statuses &&
      html`<${Field} id="st" label="Status">
        <select id="st" name="status" value=${filters.status}>
          <option value="">Any</option>
          ${statuses.map((s) => html`<option>${s}</option>`)}
        </select></${Field}>`
    }
    <${DateRangeFields} range=${filters} prefix="mf" />
    <button type="submit" class="secondary">Apply</button>
  </form>`;
}
