// Every merchant's bulk payout batches for the operator, newest first, narrowed by merchant and IST dates.
import { api, DateRangeFields, ErrorNotice, Field, html, MoreButton, qs, Table, usePaged, useState } from '../lib.js';
import { batchColumns } from '../shared/batchColumns.js';

const enc = encodeURIComponent;

/** Where a batch's page is: batch ids are unique per merchant only, so the merchant is part of the address. */
const batchHref = (b) => `#/batches/${b.merchant_id}/${enc(b.batch_id)}`;

export function Batches() {
  const [filters, setFilters] = useState({ merchant_id: '', from: '', to: '' });
  const list = usePaged(
    (cursor) => api('GET', `/admin/v1/batches${qs({ ...filters, cursor })}`),
    [filters.merchant_id, filters.from, filters.to],
  );
  return html`<h1>Batches</h1>
    <form class="row" role="search" aria-label="Filters" onSubmit=${(e) => {
      e.preventDefault();
      const f = new FormData(e.currentTarget);
      setFilters({
        merchant_id: String(f.get('merchant_id') || '').trim(),
        from: String(f.get('from') || ''),
        to: String(f.get('to') || ''),
      });
    }}>
      <${Field} id="bf-merchant" label="Merchant ID"><input id="bf-merchant" name="merchant_id" value=${filters.merchant_id} spellcheck=${false} /></${Field}>
      <${DateRangeFields} range=${filters} prefix="bf" />
      <button type="submit" class="secondary">Apply</button>
    </form>
    <h2>Newest first</h2>
    <${ErrorNotice} error=${list.error} />
    <${Table} caption="Bulk payout batches" rows=${list.rows} columns=${batchColumns(batchHref, true)} empty="No batches." />
    <${MoreButton} paged=${list} />`;
}
