// Pieces of the exceptions queue's pages (docs/operator/exceptions.md) that the list, the detail and the navigation
// share: an exception's age, the cells of its payout or merchant and of its source, what each action does, and the
// open count beside "Exceptions" in the navigation.
import { api, html, qs, ShortId, useEffect, useState } from '../lib.js';
import { idLink } from './idLink.js';

/** What each action does, as the resolve form offers it (the server says which an exception allows). */
export const ACTION_TEXT = {
  apply_as_reported: 'Apply the report as it came (the payout moves only as its transition table allows)',
  refund_in_full:
    "Give the payout's money back to the wallet (a SUCCESS payout is returned; one still open is failed and refunded)",
  assign_to_wallet: 'Credit the money to a wallet',
  return_to_sender: 'Send the money back to whoever sent it',
  dismiss: 'Close it with the reason: no money moves',
};

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** How long ago `iso` was, at `now` (ms): "3 d 4 h", "5 h 10 min", "12 min", "< 1 min". */
export function ageOf(iso, now) {
  const ms = Math.max(0, now - new Date(iso).getTime());
  if (ms < MINUTE) return '< 1 min';
  if (ms < HOUR) return `${Math.floor(ms / MINUTE)} min`;
  if (ms < DAY) return `${Math.floor(ms / HOUR)} h ${Math.floor((ms % HOUR) / MINUTE)} min`;
  return `${Math.floor(ms / DAY)} d ${Math.floor((ms % DAY) / HOUR)} h`;
}

/** The payout an exception names (linking to its page) with its merchant below; else the merchant, the wallet. */
export function subjectCell(e) {
  if (e.payout_id) {
    return html`${idLink('payouts', e.payout_id)}${
      e.merchant_id ? html`<span class="sub">${idLink('merchants', e.merchant_id)}</span>` : ''
    }`;
  }
  if (e.merchant_id) return idLink('merchants', e.merchant_id);
  if (e.wallet_id) return idLink('wallets', e.wallet_id);
  return '—';
}

/** Where the exception came from; a reconciliation run links to its page, a bank file's name wraps. */
export function sourceRef(e) {
  if (!e.source_ref) return '';
  if (e.source === 'reconciliation' && /^RR[0-9A-Z]{26}$/.test(e.source_ref)) {
    return html`<${ShortId} id=${e.source_ref} href=${`#/reconciliation/${e.source_ref}`} />`;
  }
  return html`<span class="wrap-anywhere">${e.source_ref}</span>`;
}

export const sourceCell = (e) => html`${e.source}${e.source_ref ? html`<span class="sub">${sourceRef(e)}</span>` : ''}`;

/** Tells the open count in the navigation to read again (after a resolution, on opening the queue). */
export const EXCEPTIONS_CHANGED = 'payrail:exceptions-changed';
export const exceptionsChanged = () => window.dispatchEvent(new Event(EXCEPTIONS_CHANGED));

/** The navigation counts at most this many open exceptions (one page of the list): beyond, "100+". */
const NAV_COUNT_LIMIT = 100;

/**
 * The number of open exceptions, beside "Exceptions" in the navigation: one page of the open list, read when the
 * console opens and again on EXCEPTIONS_CHANGED; nothing when none is open or the read fails.
 */
export function OpenExceptionsCount() {
  const [count, setCount] = useState(null);
  useEffect(() => {
    let live = true;
    const load = () =>
      api('GET', `/admin/v1/exceptions${qs({ state: 'open', limit: NAV_COUNT_LIMIT })}`).then(
        (page) => live && setCount(page.has_more ? `${NAV_COUNT_LIMIT}+` : String(page.data.length)),
        () => live && setCount(null),
      );
    load();
    window.addEventListener(EXCEPTIONS_CHANGED, load);
    return () => {
      live = false;
      window.removeEventListener(EXCEPTIONS_CHANGED, load);
    };
  }, []);
  if (count === null || count === '0') return null;
  return html`<span class="nav-count" data-testid="open-exceptions"
    ><span aria-hidden="true">${count}</span><span class="visually-hidden">(${count} open)</span></span
  >`;
}
