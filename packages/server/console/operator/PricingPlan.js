// A merchant's pricing plan on its page (docs/operator/charging-merchants.md): the slabs of each product, or that it
// pays no fees; finance and admins set a new plan as JSON, and a plan the server refuses (400 invalid_pricing) shows
// the field it names.
import { api, ErrorNotice, Field, html, Notice, rupees, Table, useEffect, useLoad, useState, when } from '../lib.js';
import { can } from './can.js';

const enc = encodeURIComponent;

/** The plan the editor starts from when the merchant has none: the documented example, to be edited. */
const EXAMPLE = {
  name: 'Standard',
  rules: {
    IMPS: { slabs: [{ up_to: '1000.00', flat: '2.00' }, { up_to: '25000.00', flat: '5.00' }, { flat: '10.00' }] },
    NEFT: { slabs: [{ bps: 15, min: '3.00', max: '25.00' }] },
    UPI_COLLECTION: { slabs: [{ bps: 180 }] },
  },
};

const SLAB_FIELDS = ['up_to', 'flat', 'bps', 'min', 'max'];

/**
 * A slab as an operator writes it: its fields in the documented order, without the zero flat fee or zero bps the
 * server fills in beside the other.
 */
const compactSlab = (slab) => {
  const out = Object.fromEntries(SLAB_FIELDS.filter((k) => slab[k] !== undefined).map((k) => [k, slab[k]]));
  if (out.flat === '0.00' && out.bps) delete out.flat;
  if (out.bps === 0 && out.flat !== undefined && out.flat !== '0.00') delete out.bps;
  return out;
};

/** The plan as the editor shows it: indented JSON, each slab on one line. */
const planText = (plan) => {
  const rules = Object.fromEntries(
    Object.entries(plan.rules).map(([product, rule]) => [product, { slabs: rule.slabs.map(compactSlab) }]),
  );
  return JSON.stringify({ name: plan.name, rules }, null, 2).replace(
    /\{\n\s*([^{}[\]]*?)\n\s*\}/g,
    (_, inner) => `{ ${inner.replace(/\n\s*/g, ' ')} }`,
  );
};

const HINT =
  'Products IMPS, NEFT, RTGS, UPI_COLLECTION, DEPOSIT. Slabs in rising up_to (rupees, inclusive), the last without ' +
  'it; each with flat (rupees) and/or bps (basis points), optionally min and max (rupees). A product the plan ' +
  'does not name is free.';

/** The amounts a slab covers: up to its up_to, or above the one before (the last slab). */
function slabRange(slabs, i) {
  const s = slabs[i];
  if (s.up_to !== undefined) return `up to ${rupees(s.up_to)}`;
  return i === 0 ? 'any amount' : `above ${rupees(slabs[i - 1].up_to)}`;
}

/** Basis points as a percentage: 15 → 0.15 %. */
const percent = (bps) => `${(bps / 100).toFixed(2).replace(/\.?0+$/, '')} %`;

/** What one slab charges: the flat fee and/or the percentage, then its bounds. */
function slabFee(s) {
  const parts = [];
  if (s.flat && s.flat !== '0.00') parts.push(rupees(s.flat));
  if (s.bps) parts.push(percent(s.bps));
  return parts.length ? parts.join(' + ') : rupees('0.00');
}

/** One row per slab, the product named on its first. */
const slabRows = (rules) =>
  Object.entries(rules).flatMap(([product, rule]) =>
    rule.slabs.map((s, i) => ({ product, first: i === 0, range: slabRange(rule.slabs, i), slab: s })),
  );

/** The field an invalid_pricing refusal names: its message is "rules.IMPS.slabs[1].up_to: must be …". */
const fieldOf = (error) => {
  const m = /^([A-Za-z_][\w.[\]]*): /.exec(error.message || '');
  return m ? { field: m[1], problem: error.message.slice(m[0].length) } : null;
};

function PlanError({ error }) {
  if (!error) return null;
  const named = error.code === 'invalid_pricing' ? fieldOf(error) : null;
  if (!named) return html`<${ErrorNotice} error=${error} />`;
  return html`<${Notice} kind="error">
    <span id="pricing-error">The plan was refused: <code data-testid="pricing-error-field">${named.field}</code>
    ${named.problem} <span class="muted">(invalid_pricing)</span></span>
  </${Notice}>`;
}

export function PricingPlan({ session, merchantId }) {
  const found = useLoad(
    () =>
      api('GET', `/admin/v1/merchants/${enc(merchantId)}/pricing`).catch((err) => {
        if (err.code === 'no_pricing') return { none: true };
        throw err;
      }),
    [merchantId],
  );
  const plan = found.data && !found.data.none ? found.data : null;
  const [text, setText] = useState('');
  const [error, setError] = useState(null);
  const [saved, setSaved] = useState(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (found.data) setText(planText(plan || EXAMPLE));
  }, [found.data]);
  const finance = can(session, 'finance');
  const save = async (event) => {
    event.preventDefault();
    setError(null);
    setSaved(null);
    let body;
    try {
      body = JSON.parse(text);
    } catch (err) {
      setError({ message: `The plan is not valid JSON: ${err.message}` });
      return;
    }
    setBusy(true);
    try {
      const stored = await api('PUT', `/admin/v1/merchants/${enc(merchantId)}/pricing`, body);
      setSaved(`Pricing plan “${stored.name}” saved: it binds the merchant’s next transaction.`);
      found.reload();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return html`<h2 id="pricing-h">Pricing plan</h2>
    <section class="card" aria-labelledby="pricing-h" data-testid="pricing-plan">
      <${ErrorNotice} error=${found.error} />
      ${
        found.data &&
        (plan
          ? html`<p>
                <strong data-testid="pricing-name">${plan.name}</strong
                >${`, GST ${plan.gst_rate} % on every fee; set ${when(
                  plan.updated_at,
                )}. A product the plan does not name is free.`}
              </p>
              <${Table}
                caption=${`Slabs of ${plan.name}`}
                rows=${slabRows(plan.rules)}
                empty="No product is priced: the merchant pays no fees."
                columns=${[
                  { label: 'Product', render: (r) => (r.first ? html`<strong>${r.product}</strong>` : '') },
                  { label: 'Amount', render: (r) => r.range },
                  { label: 'Fee', num: true, render: (r) => slabFee(r.slab) },
                  { label: 'Minimum', num: true, render: (r) => (r.slab.min ? rupees(r.slab.min) : '—') },
                  { label: 'Maximum', num: true, render: (r) => (r.slab.max ? rupees(r.slab.max) : '—') },
                ]}
              />`
          : html`<p data-testid="pricing-none">No pricing plan: pays no fees.</p>`)
      }
      ${
        found.data &&
        (finance
          ? html`<form onSubmit=${save} aria-label="Set the pricing plan" style="margin-top:1rem">
              ${saved && html`<${Notice}>${saved}</${Notice}>`}
              <${PlanError} error=${error} />
              <${Field}
                id="pricing-json"
                label=${plan ? 'New plan (JSON)' : 'Plan (JSON; an example to edit)'}
                hint=${HINT}
              >
                <textarea
                  id="pricing-json"
                  class="code"
                  rows="14"
                  spellcheck=${false}
                  aria-invalid=${error ? 'true' : undefined}
                  aria-describedby=${error ? 'pricing-error pricing-json-hint' : 'pricing-json-hint'}
                  value=${text}
                  onInput=${(e) => setText(e.currentTarget.value)}
                ></textarea>
              </${Field}>
              <button type="submit" disabled=${busy}>${busy ? 'Working…' : 'Save plan'}</button>
            </form>`
          : html`<p class="muted">A finance operator sets pricing plans.</p>`)
      }
    </section>`;
}
