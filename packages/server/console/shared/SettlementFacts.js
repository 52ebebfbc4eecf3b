// One settlement and the settlement lists, shared by the operator's and the merchant's settlement pages: both routes
// answer the same settlement (WIRE_SCHEMAS.Settlement), so the card, its collections and the list's columns are one;
// only the addresses differ (docs/operator/settlements.md, docs/merchant/settlements.md).
import { Badge, html, rupees, ShortId, Table, when } from '../lib.js';

/**
 * Columns of a settlement list: the settlement (opening it at `hrefOf(s)`), [merchant,] wallet, amount, fees, GST,
 * state, trigger, created; the merchant column when `merchantCell` renders it (operators only), `walletCell` the
 * wallet (a link for operators).
 */
export const settlementColumns = (hrefOf, walletCell, merchantCell) => [
  { label: 'Settlement', id: true, render: (s) => html`<${ShortId} id=${s.settlement_id} href=${hrefOf(s)} />` },
  ...(merchantCell ? [{ label: 'Merchant', id: true, render: merchantCell }] : []),
  { label: 'Wallet', id: true, render: walletCell },
  { label: 'Amount', num: true, render: (s) => rupees(s.amount) },
  { label: 'Fees', num: true, render: (s) => rupees(s.fees) },
  { label: 'GST', num: true, render: (s) => rupees(s.tax) },
  { label: 'State', render: (s) => html`<${Badge} value=${s.state} />` },
  { label: 'Trigger', render: (s) => s.trigger },
  { label: 'Created', render: (s) => when(s.created_at) },
];

/** The CSV report's link: each collection the settlement covers with amount, fee, GST and net. */
export const SettlementReportLink = ({ url, id }) =>
  html`<a href=${`${url}?format=csv`} download=${`settlement-${id}.csv`} data-testid="settlement-report"
    >Download report (CSV)</a
  >`;

/**
 * Everything known of one settlement and the collections it covers. `merchant`, `wallet` and `payout` render those
 * ids (each side links them to its own pages); `url` is the settlement's address, for its report.
 */
export function SettlementFacts({ s, url, merchant, wallet, payout }) {
  return html`<section class="card">
      <dl class="kv" data-testid="settlement-facts">
        <dt>State</dt>
        <dd data-testid="settlement-state"><${Badge} value=${s.state} /></dd>
        <dt>Amount paid</dt>
        <dd data-testid="settlement-amount">${rupees(s.amount)}</dd>
        <dt>Fees of its collections</dt>
        <dd data-testid="settlement-fees">${rupees(s.fees)}</dd>
        <dt>GST on those fees</dt>
        <dd data-testid="settlement-tax">${rupees(s.tax)}</dd>
        <dt>Trigger</dt>
        <dd>${s.trigger}</dd>
        ${
          merchant
            ? html`<dt>Merchant</dt>
                <dd>${merchant}</dd>`
            : ''
        }
        <dt>Wallet</dt>
        <dd>${wallet}</dd>
        <dt>Paid by payout</dt>
        <dd data-testid="settlement-payout">${payout} <span class="muted">(${s.payment_mode})</span></dd>
        <dt>UTR</dt>
        <dd>${s.utr || '—'}</dd>
        <dt>Created</dt>
        <dd>${when(s.created_at)}</dd>
        <dt>Updated</dt>
        <dd>${when(s.updated_at)}</dd>
        <dt>Report</dt>
        <dd><${SettlementReportLink} url=${url} id=${s.settlement_id} /></dd>
      </dl>
    </section>
    <h2>Collections it covers</h2>
    <p class="muted">
      Net is the part of the collection this settlement pays out: its amount less its fee and GST, or what was left of
      it after an earlier settlement.
    </p>
    <${Table}
      caption="Collections of this settlement"
      rows=${s.collections || []}
      empty="No collections."
      columns=${[
        {
          label: 'Collection',
          id: true,
          render: (c) => html`<${ShortId} id=${c.collection_id} href=${`#/collections/${c.collection_id}`} />`,
        },
        { label: 'Amount', num: true, render: (c) => rupees(c.amount) },
        { label: 'Fee', num: true, render: (c) => rupees(c.fee) },
        { label: 'GST', num: true, render: (c) => rupees(c.tax) },
        { label: 'Net', num: true, render: (c) => rupees(c.net) },
      ]}
    />`;
}

/** The schedule as a reader says it: manual, daily at 11:00 IST, instant. */
export const scheduleText = (a) => (a.schedule === 'daily' ? `daily at ${a.at} IST` : a.schedule);

/** The settlement account's facts: number, IFSC, holder, bank, schedule, reserve, and whether it is held. */
export function SettlementAccountFacts({ a }) {
  const held = Date.parse(a.active_from) > Date.now();
  return html`<dl class="kv" data-testid="settlement-account">
    <dt>Account number</dt>
    <dd data-testid="settlement-account-number"><span class="account-number">${a.account_number}</span></dd>
    <dt>IFSC</dt>
    <dd>${a.ifsc}</dd>
    <dt>Holder</dt>
    <dd>${a.holder_name}</dd>
    <dt>Bank</dt>
    <dd>${a.bank_name || '—'}</dd>
    <dt>Schedule</dt>
    <dd data-testid="settlement-schedule">${scheduleText(a)}</dd>
    <dt>Reserve</dt>
    <dd data-testid="settlement-reserve">
      ${a.reserve_percent === '0.00' ? 'none' : `${a.reserve_percent} % of the last ${a.reserve_days} days’ collections`}
    </dd>
    <dt>Settles</dt>
    <dd data-testid="settlement-active">
      ${
        held
          ? html`<span class="badge pending">held until ${when(a.active_from)}</span>
              <div class="muted">A changed account waits 24 hours before money is paid to it.</div>`
          : `since ${when(a.active_from)}`
      }
    </dd>
    <dt>Last set</dt>
    <dd>${when(a.updated_at)}</dd>
  </dl>`;
}
