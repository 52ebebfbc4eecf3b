// Every merchant's settlements for the operator (docs/operator/settlements.md), newest first, narrowed by merchant
// and IST days: collections net of their fees paid to the merchant's settlement account by an ordinary payout.
import { api, DateRangeFields, ErrorNotice, Field, html, MoreButton, qs, Table, usePaged, useState } from '../lib.js';
import { settlementColumns } from '../shared/SettlementFacts.js';
import { idLink } from './idLink.js';

const EMPTY = { merchant_id: '', from: '', to: '' };

function SettlementFilters({ filters, setFilters }) {
  return html`<form
    class="row"
    role="search"
    aria-label="Filters"
    onSubmit=${(e) => {
      e.preventDefault();
      const f = new FormData(e.currentTarget);
      setFilters({
        merchant_id: String(f.get('merchant_id') || '').trim(),
        from: String(f.get('from') || ''),
        to: String(f.get('to') || ''),
      });
    }}
  >
    <${Field} id="st-merchant" label="Merchant ID">
      <input id="st-merchant" name="merchant_id" value=${filters.merchant_id} spellcheck=${false} />
    </${Field}>
    <${DateRangeFields} range=${filters} prefix="st" />
    <button type="submit" class="secondary">Apply</button>
  </form>`;
}

export function Settlements() {
  const [filters, setFilters] = useState(EMPTY);
  const list = usePaged(
    (cursor) => api('GET', `/admin/v1/settlements${qs({ ...filters, cursor })}`),
    [filters.merchant_id, filters.from, filters.to],
  );
  return html`<h1>Settlements</h1>
    <p class="muted">
      A merchant's collections, net of their fees, paid to its settlement account by an ordinary payout. Set a
      merchant's account and schedule, or settle a wallet now, on the merchant's page.
    </p>
    <${SettlementFilters} filters=${filters} setFilters=${setFilters} />
    <h2>Newest first</h2>
    <${ErrorNotice} error=${list.error} />
    <${Table}
      caption="Settlements"
      rows=${list.rows}
      empty="No settlements."
      columns=${settlementColumns(
        (s) => `#/settlements/${s.settlement_id}`,
        (s) => idLink('wallets', s.wallet_id),
        (s) => idLink('merchants', s.merchant_id),
      )}
    />
    <${MoreButton} paged=${list} />`;
}
