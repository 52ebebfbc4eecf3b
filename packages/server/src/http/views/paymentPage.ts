import type { CollectionStatus } from '@payrail/protocol';
import QRCode from 'qrcode';
import type { PaymentPageView } from '../../services/PaymentPageService.ts';
import { html, htmlDocument } from './htmlDocument.ts';

/** What the payer reads for each status (the page and its status JSON say the same). */
export const PAYMENT_STATUS_LABEL: Record<CollectionStatus, string> = {
  INITIATED: 'Waiting for payment',
  PENDING: 'Payment under review',
  SUCCESS: 'Payment received',
  FAILED: 'Payment failed',
};

const BADGE_CLASS: Record<CollectionStatus, string> = {
  INITIATED: 'badge',
  PENDING: 'badge badge-warn',
  SUCCESS: 'badge badge-ok',
  FAILED: 'badge badge-bad',
};

/**
 * Polls the status JSON until the status is final, and (sandbox) sends the simulate buttons' outcome. The state
 * lives in `data-state` of the page, which the stylesheet uses to show only what fits the status.
 */
const SCRIPT = `(() => {
  const root = document.getElementById('payment');
  const badge = document.getElementById('status');
  const note = document.getElementById('sandbox-note');
  const badgeClass = ${JSON.stringify(BADGE_CLASS)};
  let delay = 2000;
  let timer = null;
  let final = root.dataset.final === 'true';
  const show = (s) => {
    root.dataset.state = s.status;
    badge.className = badgeClass[s.status] || 'badge';
    badge.textContent = s.label;
    final = s.final;
    if (final && timer) clearTimeout(timer);
  };
  const poll = async () => {
    timer = null;
    try {
      const res = await fetch(root.dataset.statusUrl, { cache: 'no-store', headers: { accept: 'application/json' } });
      if (res.ok) { show(await res.json()); delay = 2000; } else { delay = Math.min(delay * 2, 15000); }
    } catch { delay = Math.min(delay * 2, 15000); }
    if (!final) timer = setTimeout(poll, delay);
  };
  if (!final) timer = setTimeout(poll, delay);
  const buttons = Array.from(document.querySelectorAll('button[data-outcome]'));
  for (const button of buttons) {
    button.addEventListener('click', async () => {
      buttons.forEach((b) => { b.disabled = true; });
      note.textContent = 'Sending…';
      try {
        const res = await fetch(root.dataset.simulateUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ outcome: button.dataset.outcome }),
        });
        const body = await res.json().catch(() => null);
        if (res.ok && body) { show(body); note.textContent = ''; }
        else { note.textContent = (body && body.error && body.error.message) || 'The simulation was refused'; }
      } catch { note.textContent = 'Network error: try again'; }
      buttons.forEach((b) => { b.disabled = false; });
    });
  }
})();`;

/** Page-specific rules on top of the theme: what each status shows. */
const PAGE_CSS = `
[data-state="SUCCESS"] .pay, [data-state="FAILED"] .pay, [data-state="PENDING"] .pay { display: none; }
[data-state="SUCCESS"] .sandbox, [data-state="FAILED"] .sandbox { display: none; }
`;

export interface PaymentPageLinks {
  statusUrl: string;
  simulateUrl: string;
  nonce: string;
}

const sandboxButtons = html`<section class="sandbox notice stack" aria-labelledby="sandbox-title">
  <h2 id="sandbox-title">Sandbox</h2>
  <p class="muted">No money moves. Play the payer's bank:</p>
  <div class="row">
    <button type="button" class="btn btn-ok" data-outcome="SUCCESS">Simulate success</button>
    <button type="button" class="btn btn-bad" data-outcome="FAILED">Simulate failure</button>
  </div>
  <p id="sandbox-note" class="muted" role="alert"></p>
</section>`;

/** The hosted payment page: payee, amount, QR and app button for the intent link, live status, sandbox buttons. */
export async function renderPaymentPage(view: PaymentPageView, links: PaymentPageLinks): Promise<string> {
  const qr = (await QRCode.toString(view.intentUrl, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' })).replace(
    '<svg ',
    '<svg role="img" aria-label="QR code of the UPI payment link" focusable="false" ',
  );
  const final = view.status === 'SUCCESS' || view.status === 'FAILED';
  const body = html`<main
    id="payment"
    data-state=${view.status}
    data-final=${String(final)}
    data-status-url=${links.statusUrl}
    data-simulate-url=${links.simulateUrl}
  >
    <div class="card stack">
      <header class="center stack">
        <p class="muted">Pay to</p>
        <h1>${view.payeeName}</h1>
        <p class="amount">₹${view.amount}</p>
        ${view.remarks ? html`<p class="muted">${view.remarks}</p>` : null}
        <p>
          <span id="status" class=${BADGE_CLASS[view.status]} role="status" aria-live="polite"
            >${PAYMENT_STATUS_LABEL[view.status]}</span
          >
        </p>
      </header>
      <section class="pay stack" aria-label="Pay with a UPI app">
        <div class="qr" dangerouslySetInnerHTML=${{ __html: qr }}></div>
        <p class="muted center">Scan with any UPI app, or on this phone:</p>
        <a class="btn btn-primary" href=${view.intentUrl}>Open UPI app</a>
      </section>
      ${view.sandbox ? sandboxButtons : null}
    </div>
    <footer>Secured by Payrail</footer>
  </main>`;
  return htmlDocument({
    title: `Pay ₹${view.amount} to ${view.payeeName}`,
    nonce: links.nonce,
    css: PAGE_CSS,
    body,
    script: SCRIPT,
  });
}

/** The answer to a link that names no collection. */
export function renderPaymentNotFound(nonce: string): string {
  return htmlDocument({
    title: 'Payment link not found',
    nonce,
    body: html`<main>
      <div class="card stack center">
        <h1>Payment link not found</h1>
        <p class="muted">This payment link is not valid. Ask the merchant for a new one.</p>
      </div>
      <footer>Payrail</footer>
    </main>`,
  });
}
