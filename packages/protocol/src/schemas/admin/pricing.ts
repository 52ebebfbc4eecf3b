import { dateTime, text } from '../common.ts';
import { merchantIdParam } from './merchants.ts';

/** Pricing plans (docs/operator/charging-merchants.md): what a merchant pays per transaction, by product. */

export const PRICED_PRODUCT_NAMES = ['IMPS', 'NEFT', 'RTGS', 'UPI_COLLECTION', 'DEPOSIT'] as const;

/**
 * A plan as sent. Checked by the server rule by rule so that a refusal names the field (400 `invalid_pricing`,
 * e.g. `rules.IMPS.slabs[1].up_to`); the schema only says what the fields are.
 */
export const pricingPlanBody = {
  type: 'object',
  description:
    '`{"name","rules":{PRODUCT:{"slabs":[{"up_to"?,"flat"?,"bps"?,"min"?,"max"?}]}}}`. Products IMPS, NEFT, RTGS, UPI_COLLECTION, DEPOSIT (a product the plan does not name is free). Slabs in rising `up_to` (rupees, inclusive), the last without it; each has `flat` (rupees) and/or `bps` (whole basis points, 0-10000); `min`/`max` (rupees) clamp the fee. Fee = flat + amount × bps / 10000, half-up to the paisa.',
  properties: {
    name: { description: 'The plan’s name, 1 to 100 characters' },
    rules: { description: 'One rule per product: {"slabs": [...]}' },
  },
} as const;

const slabView = {
  type: 'object',
  required: ['flat', 'bps'],
  properties: {
    up_to: { ...text, description: 'Rupees, inclusive; absent on the last slab' },
    flat: text,
    bps: { type: 'integer' },
    min: text,
    max: text,
  },
} as const;

export const pricingPlanView = {
  type: 'object',
  required: ['merchant_id', 'name', 'rules', 'gst_rate', 'created_at', 'updated_at'],
  properties: {
    merchant_id: text,
    name: text,
    rules: {
      type: 'object',
      propertyNames: { enum: PRICED_PRODUCT_NAMES },
      additionalProperties: {
        type: 'object',
        required: ['slabs'],
        properties: { slabs: { type: 'array', items: slabView } },
      },
    },
    gst_rate: { ...text, description: 'PAYRAIL_GST_RATE, percent: charged on every fee' },
    created_at: dateTime,
    updated_at: dateTime,
  },
} as const;

export const pricingParams = merchantIdParam;
