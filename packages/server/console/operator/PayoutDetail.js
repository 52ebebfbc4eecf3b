// One payout for the operator: its facts and timeline, and (finance) resolving a PENDING payout or recording a
// return by the bank.
import { ActionForm, api, ErrorNotice, Field, html, ShortId, useLoad } from '../lib.js';
import { PayoutFacts } from '../shared/PayoutFacts.js';
import { TimelineSection } from '../shared/TimelineSection.js';
import { can } from './can.js';
import { idLink } from './idLink.js';
import { loadTimeline } from './loadTimeline.js';

const enc = encodeURIComponent;

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
          await api('POST', `/admin/v1/payouts/${enc(id)}/return`, { reason: String(form.get('reason') || '').trim() });
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
