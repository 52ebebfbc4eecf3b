// A payout's UTR as every page shows it: the bank's reference, or Payrail's own marked as such. In the sandbox (and
// whenever an operator resolves a payout SUCCESS without the bank's UTR) the resolve makes one up that looks like a
// bank's; the payout records it (utr_invented, migration 039) and no page lets it pass for the bank's.
import { html } from '../lib.js';

export const INVENTED_UTR = "invented by Payrail: resolved without the bank's UTR";

/** The UTR with an "invented" mark when Payrail made it up; a dash when there is none. */
export function UtrText({ p }) {
  if (!p.utr_number) return '—';
  return html`<span class="utr">${p.utr_number}</span>${
      p.utr_invented
        ? html` <span class="badge invented" title=${INVENTED_UTR} data-testid="utr-invented">invented</span>`
        : ''
    }`;
}
