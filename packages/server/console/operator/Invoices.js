// Monthly GST tax invoices (docs/operator/charging-merchants.md, "Tax invoices"): the list, narrowed by merchant and
// month, each with its lines, totals and downloads; finance and admins run a month (running it again changes nothing).
import {
  ActionForm,
  api,
  ErrorNotice,
  Field,
  html,
  MoreButton,
  Notice,
  qs,
  Table,
  usePaged,
  useState,
} from '../lib.js';
import { invoiceColumns } from '../shared/invoiceColumns.js';
import { can } from './can.js';
import { idLink } from './idLink.js';

const INVOICES = '/admin/v1/invoices';
const enc = encodeURIComponent;

/** This IST calendar month, YYYY-MM: the month a run most often asks for. */
const istMonthNow = () =>
  new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Kolkata', year: 'numeric', month: '2-digit' }).format(new Date());

function InvoiceFilters({ filters, setFilters }) {
  return html`<form
    class="row"
    role="search"
    aria-label="Filters"
    onSubmit=${(e) => {
      e.preventDefault();
      const f = new FormData(e.currentTarget);
      setFilters({ merchant_id: String(f.get('merchant_id') || '').trim(), month: String(f.get('month') || '') });
    }}
  >
    <${Field} id="inv-merchant" label="Merchant ID">
      <input id="inv-merchant" name="merchant_id" value=${filters.merchant_id} spellcheck=${false} />
    </${Field}>
    <${Field} id="inv-month" label="Month (IST)">
      <input id="inv-month" name="month" type="month" value=${filters.month} />
    </${Field}>
    <button type="submit" class="secondary">Apply</button>
  </form>`;
}

export function Invoices({ session }) {
  const [filters, setFilters] = useState({ merchant_id: '', month: '' });
  const [ran, setRan] = useState(null);
  const list = usePaged(
    (cursor) => api('GET', `${INVOICES}${qs({ ...filters, cursor })}`),
    [filters.merchant_id, filters.month],
  );
  return html`<h1>Invoices</h1>
    <p class="muted">
      A tax invoice per merchant and IST month for the fees it was charged (SAC 997158), numbered in one series per
      financial year.
    </p>
    ${
      can(session, 'finance')
        ? html`<section class="card" aria-labelledby="run-h">
            <h2 id="run-h" style="margin-top:0">Run a month</h2>
            <p class="muted">
              Issues the month's invoices for the fees charged so far; running a month again answers the invoices it
              issued, unchanged.
            </p>
            ${ran && html`<${Notice}>${ran}</${Notice}>`}
            <${ActionForm}
              label="Run a month"
              submit="Run month"
              action=${async (form) => {
                setRan(null);
                const run = await api('POST', `${INVOICES}/run`, { month: String(form.get('month') || '') });
                const n = run.invoices.length;
                setRan(
                  `${run.month}: ${n} ${n === 1 ? 'invoice' : 'invoices'} ${run.already_run ? 'issued before' : 'issued'}.`,
                );
                list.reload();
              }}
            >
              <div class="row" style="margin-bottom:0.75rem">
                <${Field} id="run-month" label="Month to invoice (IST)">
                  <input id="run-month" name="month" type="month" required value=${istMonthNow()} />
                </${Field}>
              </div>
            </${ActionForm}>
          </section>`
        : html`<p class="muted">A finance operator runs a month's invoices.</p>`
    }
    <${InvoiceFilters} filters=${filters} setFilters=${setFilters} />
    <${ErrorNotice} error=${list.error} />
    <${Table}
      caption="Invoices"
      rows=${list.rows}
      empty="No invoices."
      columns=${invoiceColumns(
        (i) => `#/invoices/${i.invoice_id}`,
        (i) => `${INVOICES}/${enc(i.invoice_id)}`,
        (i) => idLink('merchants', i.merchant_id),
      )}
    />
    <${MoreButton} paged=${list} />`;
}
