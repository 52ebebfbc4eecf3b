// How money reaches one wallet by bank transfer (docs/merchant/funding-a-wallet.md): its virtual account (number and
// IFSC, as the merchant's "Add money" shows them) and the deposits credited to it, newest first, a page at a time.
import {
  api,
  ErrorNotice,
  html,
  AccountNumber,
  MoreButton,
  qs,
  rupees,
  ShortId,
  Table,
  usePaged,
  when,
} from '../lib.js';
import { idLink } from './idLink.js';

const enc = encodeURIComponent;

const columns = [
  { label: 'Deposit', id: true, render: (d) => html`<${ShortId} id=${d.deposit_id} />` },
  { label: 'Amount', num: true, render: (d) => rupees(d.amount) },
  {
    label: 'Fee + GST',
    num: true,
    render: (d) => (d.fees === '0.00' && d.tax === '0.00' ? '—' : `${rupees(d.fees)} + ${rupees(d.tax)}`),
  },
  { label: 'UTR', render: (d) => html`<span class="wrap-anywhere">${d.utr}</span>` },
  {
    label: 'Remitter',
    render: (d) =>
      html`${d.remitter_name || '—'}<span class="sub"
          ><${AccountNumber} number=${d.remitter_account} /> · ${d.remitter_ifsc || '—'}</span
        >`,
  },
  {
    label: 'Source',
    render: (d) =>
      html`${d.source}${d.exception_id ? html`<span class="sub">${idLink('exceptions', d.exception_id)}</span>` : ''}`,
  },
  { label: 'Credited', render: (d) => when(d.credited_at) },
];

export function WalletDeposits({ walletId, virtualAccount }) {
  const deposits = usePaged(
    (cursor) => api('GET', `/admin/v1/wallets/${enc(walletId)}/deposits${qs({ cursor })}`),
    [walletId],
  );
  return html`<h2 id="deposits-h">Deposits</h2>
    <section aria-labelledby="deposits-h" data-testid="wallet-deposits">
      ${
        virtualAccount
          ? html`<p data-testid="wallet-virtual-account">
              Virtual account <strong>${virtualAccount.number}</strong> · IFSC <strong>${virtualAccount.ifsc}</strong>
              <span class="muted"> · a bank transfer to it is credited to this wallet</span>
            </p>`
          : html`<p class="muted">No virtual account is shown (live mode needs PAYRAIL_VA_IFSC).</p>`
      }
      <${ErrorNotice} error=${deposits.error} />
      <${Table}
        caption="Deposits to this wallet, newest first"
        rows=${deposits.rows}
        columns=${columns}
        empty=${deposits.loading ? 'Loading…' : 'No deposit yet.'}
      />
      <${MoreButton} paged=${deposits} />
    </section>`;
}
