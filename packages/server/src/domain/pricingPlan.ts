import { formatPaise, parseRupeesOrZero } from '@payrail/protocol';

/**
 * Pricing plans (docs/operator/charging-merchants.md): what a merchant pays per transaction, by product. A plan is
 * validated and normalised to paise here; the fee itself is computed by the database (function `pricing_fee`,
 * migration 029) in the statement that debits it, so that a plan change binds the next transaction on every instance
 * and the one rule is written once.
 */
export const PRICED_PRODUCTS = ['IMPS', 'NEFT', 'RTGS', 'UPI_COLLECTION', 'DEPOSIT'] as const;
export type PricedProduct = (typeof PRICED_PRODUCTS)[number];

/** One slab, in paise: `upTo` inclusive (null: open-ended, the last slab). */
export interface Slab {
  upTo: bigint | null;
  flat: bigint;
  bps: number;
  min: bigint | null;
  max: bigint | null;
}

export interface PricingPlan {
  name: string;
  rules: Partial<Record<PricedProduct, Slab[]>>;
}

/** What pricing needs from the settings: GST at `gstRateBp` hundredths of a percent, and whether a plan is required. */
export interface CommercialTerms {
  gstRateBp: number;
  requirePricing: boolean;
}

/** A plan that breaks a rule: `field` names where (`rules.IMPS.slabs[1].up_to`). */
export class InvalidPricing extends Error {
  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super(`${field}: ${problem}`);
    this.name = 'InvalidPricing';
  }
}

const SLAB_FIELDS = new Set(['up_to', 'flat', 'bps', 'min', 'max']);
const MAX_SLABS = 20;
/** ₹1,00,00,00,000 (a hundred crore): far above any transaction, far below where paise × bps could overflow. */
const MAX_PAISE = 100_000_000_000n;

/** Rupees as decimal text (or a JSON number) with at most two fraction digits, zero allowed, to paise. */
function paiseOf(value: unknown, field: string): bigint {
  const paise = parseRupeesOrZero(value);
  if (paise === null) {
    throw new InvalidPricing(field, 'must be rupees as decimal text with at most two fraction digits, e.g. "2.50"');
  }
  if (paise > MAX_PAISE) throw new InvalidPricing(field, 'is too large');
  return paise;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseSlab(raw: unknown, field: string, last: boolean): Slab {
  if (!isObject(raw)) throw new InvalidPricing(field, 'must be an object');
  for (const key of Object.keys(raw)) {
    if (!SLAB_FIELDS.has(key))
      throw new InvalidPricing(`${field}.${key}`, 'is not a slab field (up_to, flat, bps, min, max)');
  }
  const upTo = raw.up_to === undefined || raw.up_to === null ? null : paiseOf(raw.up_to, `${field}.up_to`);
  if (last && upTo !== null) throw new InvalidPricing(`${field}.up_to`, 'the last slab is open-ended: leave up_to out');
  if (!last && upTo === null) throw new InvalidPricing(`${field}.up_to`, 'is required on every slab but the last');
  if (raw.flat === undefined && raw.bps === undefined) throw new InvalidPricing(field, 'needs flat, bps or both');
  const flat = raw.flat === undefined ? 0n : paiseOf(raw.flat, `${field}.flat`);
  let bps = 0;
  if (raw.bps !== undefined) {
    if (typeof raw.bps !== 'number' || !Number.isInteger(raw.bps) || raw.bps < 0 || raw.bps > 10_000) {
      throw new InvalidPricing(`${field}.bps`, 'must be a whole number of basis points from 0 to 10000');
    }
    bps = raw.bps;
  }
  const min = raw.min === undefined || raw.min === null ? null : paiseOf(raw.min, `${field}.min`);
  const max = raw.max === undefined || raw.max === null ? null : paiseOf(raw.max, `${field}.max`);
  if (min !== null && max !== null && min > max) throw new InvalidPricing(`${field}.min`, 'is above max');
  return { upTo, flat, bps, min, max };
}

/** Validates a plan as the admin API receives it (`{"name","rules":{PRODUCT:{"slabs":[…]}}}`); throws InvalidPricing. */
export function parsePricingPlan(body: unknown): PricingPlan {
  if (!isObject(body)) throw new InvalidPricing('body', 'must be a JSON object with name and rules');
  for (const key of Object.keys(body)) {
    if (key !== 'name' && key !== 'rules') throw new InvalidPricing(key, 'is not a plan field (name, rules)');
  }
  const name = body.name;
  if (typeof name !== 'string' || name.trim().length === 0 || name.length > 100) {
    throw new InvalidPricing('name', 'must be text of 1 to 100 characters');
  }
  if (!isObject(body.rules))
    throw new InvalidPricing('rules', `must be an object keyed by product (${PRICED_PRODUCTS.join(', ')})`);
  const rules: PricingPlan['rules'] = {};
  for (const [product, rule] of Object.entries(body.rules)) {
    const field = `rules.${product}`;
    if (!(PRICED_PRODUCTS as readonly string[]).includes(product)) {
      throw new InvalidPricing(field, `is not a product (${PRICED_PRODUCTS.join(', ')})`);
    }
    if (!isObject(rule) || Object.keys(rule).some((k) => k !== 'slabs')) {
      throw new InvalidPricing(field, 'must be {"slabs": [...]}');
    }
    const slabs = rule.slabs;
    if (!Array.isArray(slabs) || slabs.length === 0 || slabs.length > MAX_SLABS) {
      throw new InvalidPricing(`${field}.slabs`, `must be a list of 1 to ${MAX_SLABS} slabs`);
    }
    const parsed = slabs.map((s, i) => parseSlab(s, `${field}.slabs[${i}]`, i === slabs.length - 1));
    parsed.forEach((slab, i) => {
      const before = i > 0 ? parsed[i - 1]?.upTo : null;
      if (slab.upTo !== null && before !== null && before !== undefined && slab.upTo <= before) {
        throw new InvalidPricing(`${field}.slabs[${i}].up_to`, 'must be above the previous slab’s up_to');
      }
    });
    rules[product as PricedProduct] = parsed;
  }
  return { name: name.trim(), rules };
}

const numberOrNull = (v: bigint | null): number | null => (v === null ? null : Number(v));

/** The plan as the database keeps it (`pricing_plans.rules`): paise as JSON numbers, every field present. */
export function storedRules(plan: PricingPlan): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [product, slabs] of Object.entries(plan.rules)) {
    out[product] = (slabs ?? []).map((s) => ({
      up_to: numberOrNull(s.upTo),
      flat: Number(s.flat),
      bps: s.bps,
      min: numberOrNull(s.min),
      max: numberOrNull(s.max),
    }));
  }
  return out;
}

const bigOrNull = (v: unknown): bigint | null => (v === null || v === undefined ? null : BigInt(v as number));

/** The plan from what the database keeps. */
export function rulesFromStored(stored: Record<string, unknown>): PricingPlan['rules'] {
  const rules: PricingPlan['rules'] = {};
  for (const [product, slabs] of Object.entries(stored)) {
    rules[product as PricedProduct] = (slabs as Record<string, unknown>[]).map((s) => ({
      upTo: bigOrNull(s.up_to),
      flat: BigInt(s.flat as number),
      bps: Number(s.bps),
      min: bigOrNull(s.min),
      max: bigOrNull(s.max),
    }));
  }
  return rules;
}

/** The plan's rules as the admin API answers them: rupees as decimal text, absent fields left out. */
export function pricingRulesWire(rules: PricingPlan['rules']): Record<string, { slabs: Record<string, unknown>[] }> {
  const out: Record<string, { slabs: Record<string, unknown>[] }> = {};
  for (const product of PRICED_PRODUCTS) {
    const slabs = rules[product];
    if (!slabs) continue;
    out[product] = {
      slabs: slabs.map((s) => ({
        ...(s.upTo !== null ? { up_to: formatPaise(s.upTo) } : {}),
        flat: formatPaise(s.flat),
        bps: s.bps,
        ...(s.min !== null ? { min: formatPaise(s.min) } : {}),
        ...(s.max !== null ? { max: formatPaise(s.max) } : {}),
      })),
    };
  }
  return out;
}

/**
 * PAYRAIL_GST_RATE (a percent with at most two fraction digits, e.g. `18`) in hundredths of a percent; null when it is
 * not such a number or not below 100.
 */
export function gstRateBp(text: string): number | null {
  if (!/^[0-9]{1,2}(\.[0-9]{1,2})?$/.test(text)) return null;
  const [whole = '0', fraction = ''] = text.split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
}
