import { dateTime, idParams, integer, nullableText, pageQueryProperties, pageSchema, text } from '../common.ts';
import { SCHEME_NAMES } from './schemeNames.ts';
import { amountInput, walletView } from './wallets.ts';

/** Merchants: create, read, list, change, and rotate their keys and webhook secret. */

export const MERCHANT_STATUSES = ['active', 'suspended'] as const;

export const merchantIdParam = idParams('merchant_id', { type: 'string' });

const merchantLimits = {
  type: 'object',
  properties: { daily_limit: nullableText, monthly_limit: nullableText },
} as const;

const merchantSettings = {
  type: 'object',
  properties: {
    collection_callback_url: nullableText,
    upi_vpa: nullableText,
    upi_payee_name: nullableText,
    beneficiary_verification: { type: 'string', enum: ['off', 'required'] },
    min_name_match_score: integer,
    default_scheme: { type: 'string', enum: SCHEME_NAMES },
  },
} as const;

/** The recipient of the merchant's tax invoices (null until set). */
const merchantBilling = {
  type: 'object',
  properties: {
    legal_name: { ...nullableText, description: "registered name on tax invoices (null: the merchant's name)" },
    gstin: { ...nullableText, description: 'GSTIN, 15 characters, check character verified' },
    billing_state: { ...nullableText, description: "two-digit GST state code (null: the operator's state)" },
  },
} as const;

/** A merchant without secrets: limits and settings at the top level and grouped, and its wallets. */
export const merchantView = {
  type: 'object',
  required: ['merchant_id', 'name', 'status', 'wallets'],
  properties: {
    merchant_id: text,
    name: text,
    status: { type: 'string', enum: MERCHANT_STATUSES },
    ...merchantLimits.properties,
    ...merchantSettings.properties,
    ...merchantBilling.properties,
    limits: merchantLimits,
    settings: merchantSettings,
    wallets: { type: 'array', items: walletView },
    created_at: dateTime,
    updated_at: dateTime,
  },
} as const;

export const merchantCreateBody = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: { name: { type: 'string', minLength: 1, maxLength: 200 } },
} as const;

/**
 * Something about a request that succeeded that the operator should know: the merchant was created, but, say,
 * another merchant already has its name. `code` for programs, `message` for people.
 */
export const adminWarning = {
  type: 'object',
  required: ['code', 'message'],
  properties: {
    code: { type: 'string', enum: ['duplicate_name'] },
    message: { type: 'string' },
    merchant_ids: {
      type: 'array',
      items: text,
      description: 'duplicate_name: the other merchants with this name (any case), oldest first, at most 10',
    },
  },
} as const;

export const merchantCreated = {
  type: 'object',
  properties: {
    merchant_id: text,
    name: text,
    api_key: text,
    secret_key: text,
    webhook_secret: text,
    wallet_id: text,
    warnings: {
      type: 'array',
      items: adminWarning,
      description:
        'Empty, or what the operator should know: `duplicate_name` when another merchant already has this name (any case). The merchant is created either way.',
    },
  },
} as const;

export const merchantPatchBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    daily_limit: { anyOf: [amountInput, { type: 'null' }] },
    monthly_limit: { anyOf: [amountInput, { type: 'null' }] },
    collection_callback_url: { type: ['string', 'null'], maxLength: 2048 },
    upi_vpa: { type: ['string', 'null'], maxLength: 300 },
    upi_payee_name: { type: ['string', 'null'], maxLength: 100 },
    status: { type: 'string', enum: MERCHANT_STATUSES },
    beneficiary_verification: { type: 'string', enum: ['off', 'required'] },
    min_name_match_score: { type: 'integer', minimum: 0, maximum: 100 },
    default_scheme: {
      type: 'string',
      enum: SCHEME_NAMES,
      description: 'Scheme of a token issued from plain credentials on the V1 token path (default v2)',
    },
    legal_name: { type: ['string', 'null'], maxLength: 200, description: 'registered name on tax invoices' },
    gstin: { type: ['string', 'null'], maxLength: 20, description: 'GSTIN (15 characters, check character verified)' },
    billing_state: { type: ['string', 'null'], maxLength: 2, description: 'two-digit GST state code, e.g. 27' },
  },
} as const;

export const merchantListQuery = {
  type: 'object',
  properties: {
    q: { type: 'string', maxLength: 200, description: 'exact merchant_id, or part of the name (any case)' },
    status: { type: 'string', enum: MERCHANT_STATUSES },
    ...pageQueryProperties,
  },
} as const;

export const merchantPage = pageSchema(merchantView);

export const credentialsRotated = {
  type: 'object',
  properties: { merchant_id: text, api_key: text, secret_key: text },
} as const;

export const webhookSecretRotated = {
  type: 'object',
  properties: {
    merchant_id: text,
    webhook_secret: text,
    previous_secret_expires_at: { type: 'string', format: 'date-time' },
  },
} as const;
