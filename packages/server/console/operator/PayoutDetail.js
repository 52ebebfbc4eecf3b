// One payout for the operator: its facts and timeline, and (finance) resolving a PENDING payout or recording a
// return by the bank.
import { ActionForm, api, ErrorNotice, Field, html, accountText, rupees, ShortId, useLoad } from '../lib.js';
import { beneficiaryOf } from '../shared/beneficiaryOf.js';
import { PayoutFacts } from '../shared/PayoutFacts.js';
import { TimelineSection } from '../shared/TimelineSection.js';
import { can } from './can.js';
import { idLink } from './idLink.js';
import { loadTimeline } from './loadTimeline.js';

const enc = encodeURIComponent;

/** Who a payout pays, as a confirmation names them: the name, the account as this page shows it, the IFSC. */
function payee(p) {
  const b = beneficiaryOf(p);
  return `${b.beneficiary_name || 'the beneficiary'} (account ${accountText(b.beneficiary_acc_number)}, IFSC ${b.beneficiary_ifsc || '—'})`;
}

/** Resolving moves money for good: the question names the payout, its amount and who it pays. */
export function resolveQuestion(p, status, utr) {
  const outcome =
    status === 'SUCCESS'
      ? utr
        ? `as SUCCESS with UTR ${utr}`
        : 'as SUCCESS without a UTR: Payrail will invent one, marked "invented" wherever it is shown'
      : 'as FAILED: the amount goes back to the wallet';
  return `Resolve payout ${p.transaction_id} of ${rupees(p.amount)} to ${payee(p)} ${outcome}?`;
}

/** A return credits the wallet back and tells the merchant: the question names what is returned. */
export function returnQuestion(p, reason) {
  return `Record that the bank returned payout ${p.transaction_id} of ${rupees(p.amount)} to ${payee(p)} (reason: ${reason})? The amount goes back to the wallet and the merchant is told.`;
}

export function PayoutDetail({ session, params: [id] }) {
  const payout = useLoad(() => api('GET', `/admin/v1/payouts/${enc(id)}`), [id]);
  const timeline = useLoad(() => loadTimeline('payouts', id), [id]);
  const p = payout.data;
  const reload = () => {
    payout.reload();
    timeline.reload();
  };
  return html`<h1>Payout</h1>
    <p class="id"><${ShortId} id=${id} /></p>
    <${ErrorNotice} error=${payout.error} />
    ${
      p &&
      html`<${PayoutFacts}
        p=${p}
        merchantLink=${idLink('merchants', p.merchant_id)}
        walletLink=${idLink('wallets', p.wallet_id)}
      />`
    }
    ${
      p &&
      p.status === 'PENDING' &&
      can(session, 'finance') &&
      html`<section class="card" aria-labelledby="resolve-h">
      <h2 id="resolve-h" style="margin-top:0">Resolve this PENDING payout</h2>
      <${ActionForm}
        label="Resolve payout"
        submit="Resolve"
        action=${async (form) => {
          const body = { status: String(form.get('status')) };
          const utr = String(form.get('utr_number') || '').trim();
          if (utr && body.status === 'SUCCESS') body.utr_number = utr;
          if (!window.confirm(resolveQuestion(p, body.status, body.utr_number))) return;
          await api('POST', `/admin/v1/payouts/${enc(id)}/resolve`, body);
          reload();
        }}
      >
        <div class="row" style="margin-bottom:0.75rem">
          <${Field} id="r-status" label="Outcome">
            <select id="r-status" name="status"><option value="SUCCESS">SUCCESS</option><option value="FAILED">FAILED (refunded)</option></select>
          </${Field}>
          <${Field} id="r-utr" label="UTR (optional)"><input id="r-utr" name="utr_number" maxlength="40" /></${Field}>
        </div>
      </${ActionForm}>
    </section>`
    }
    ${
      p &&
      p.status === 'SUCCESS' &&
      can(session, 'finance') &&
      html`<section class="card" aria-labelledby="return-h">
      <h2 id="return-h" style="margin-top:0">Record a return by the bank</h2>
      <p>The bank sent this transfer's money back: the amount goes back to the wallet and the merchant is told why.</p>
      <${ActionForm}
        label="Return payout"
        submit="Return"
        danger=${true}
        action=${async (form) => {
          const reason = String(form.get('reason') || '').trim();
          if (!window.confirm(returnQuestion(p, reason))) return;
          await api('POST', `/admin/v1/payouts/${enc(id)}/return`, { reason });
          reload();
        }}
      >
        <div class="row" style="margin-bottom:0.75rem">
          <${Field} id="rt-reason" label="Reason (the merchant sees it)">
            <input id="rt-reason" name="reason" required maxlength="255" placeholder="Beneficiary account closed" />
          </${Field}>
        </div>
      </${ActionForm}>
    </section>`
    }
    <${TimelineSection} timeline=${timeline} payout=${p} reload=${reload} />`;
}
