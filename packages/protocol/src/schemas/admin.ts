import { COLLECTION_STATUSES, PAYOUT_STATUSES } from '../wire.ts';
import { WIRE_SCHEMAS } from '../wireSchemas.ts';
import {
  bool,
  createdRangeQuery,
  dateTime,
  integer,
  nullableDateTime,
  nullableInteger,
  nullableText,
  pageQueryProperties,
  pageSchema,
  rupeesText,
  text,
} from './common.ts';

/**
 * The operator API (docs/operator/admin-api.md) and the console's reads of it: every request and answer shape, once.
 * Answers list every property the server writes; an open-ended map says so with `additionalProperties`.
 */

export const OPERATOR_ROLES = ['viewer', 'finance', 'admin'] as const;
export const MERCHANT_STATUSES = ['active', 'suspended'] as const;
export const DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;
export const CREDIT_REQUEST_STATUSES = ['pending', 'approved', 'rejected'] as const;
const SCHEME_NAMES = ['v1', 'v2'] as const;

/** Rupees as decimal text with at most two fraction digits (a JSON number is accepted too). */
export const amountInput = {
  anyOf: [
    { type: 'string', pattern: '^[0-9]+(\\.[0-9]{1,2})?$' },
    { type: 'number', exclusiveMinimum: 0 },
  ],
  description: 'Rupees as decimal text with at most two fraction digits (a JSON number is accepted too)',
} as const;

export const merchantIdParam = {
  type: 'object',
  required: ['merchant_id'],
  properties: { merchant_id: { type: 'string' } },
} as const;

export const walletIdParam = {
  type: 'object',
  required: ['wallet_id'],
  properties: { wallet_id: { type: 'string' } },
} as const;

export const transactionIdParam = { type: 'object', properties: { transaction_id: { type: 'string' } } } as const;
export const txnIdParam = { type: 'object', properties: { txnId: { type: 'string' } } } as const;

// ---- Merchants and wallets -------------------------------------------------------------------------------

export const walletView = {
  type: 'object',
  required: ['wallet_id', 'balance', 'currency', 'created_at', 'updated_at'],
  properties: {
    wallet_id: text,
    balance: rupeesText,
    on_hold: { ...rupeesText, description: 'Sum of the payouts not yet final (GET /admin/v1/wallets/{wallet_id})' },
    currency: { type: 'string', const: 'INR' },
    created_at: dateTime,
    updated_at: dateTime,
    merchant_id: { type: 'string', description: 'GET /admin/v1/wallets/{wallet_id} only' },
  },
} as const;

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

export const merchantCreated = {
  type: 'object',
  properties: {
    merchant_id: text,
    name: text,
    api_key: text,
    secret_key: text,
    webhook_secret: text,
    wallet_id: text,
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
  },
} as const;

export const merchantListQuery = {
  type: 'object',
  properties: {
    q: { type: 'string', maxLength: 200, description: 'exact merchant_id, or part of the name (any case)' },
    status: { type: 'string', enum: MERCHANT_STATUSES },
    limit: { type: 'string', pattern: '^[0-9]+$' },
    cursor: { type: 'string' },
  },
} as const;

export const merchantPage = pageSchema(merchantView);

export const walletCreated = { type: 'object', properties: { wallet_id: text } } as const;

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

export const walletCreditBody = {
  type: 'object',
  required: ['amount'],
  additionalProperties: false,
  properties: { amount: amountInput, reference: { type: 'string', minLength: 1, maxLength: 100 } },
} as const;

export const walletCredited = {
  type: 'object',
  properties: { wallet_id: text, balance: rupeesText, duplicate: bool },
} as const;

// ---- Credit requests (maker ≠ checker) -------------------------------------------------------------------

export const creditRequestView = {
  type: 'object',
  properties: {
    credit_request_id: text,
    wallet_id: text,
    amount: rupeesText,
    reference: nullableText,
    status: { type: 'string', enum: CREDIT_REQUEST_STATUSES },
    requested_by: text,
    decided_by: nullableText,
    decided_at: nullableDateTime,
    created_at: dateTime,
    balance: { ...rupeesText, description: 'Approval: the wallet balance after the credit' },
  },
} as const;

export const creditRequestQuery = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: CREDIT_REQUEST_STATUSES },
    limit: { type: 'string', pattern: '^[0-9]+$' },
    cursor: { type: 'string', maxLength: 100 },
  },
} as const;

export const creditRequestIdParam = {
  type: 'object',
  required: ['credit_request_id'],
  properties: { credit_request_id: { type: 'string', maxLength: 40 } },
} as const;

export const creditRequestPage = pageSchema(creditRequestView);

// ---- Payouts -----------------------------------------------------------------------------------------------

/** A payout as the operator and the merchant console see it: the merchant's wire object and the rail's side. */
export const adminPayoutView = {
  type: 'object',
  properties: {
    ...WIRE_SCHEMAS.PayoutTransaction.properties,
    merchant_id: text,
    scheme: { type: 'string', enum: SCHEME_NAMES },
    rail: text,
    connector: { type: 'string', description: 'The connector chosen at initiation; `rail` is its older name' },
    rail_reference: nullableText,
    rail_error: nullableText,
    failure_reason: nullableText,
    returned_at: nullableDateTime,
    return_reason: nullableText,
    merchant_name: { type: ['string', 'null'], description: 'Operator lists: the merchant’s name' },
  },
} as const;

export const payoutListQuery = {
  type: 'object',
  properties: {
    merchant_id: { type: 'string' },
    status: { type: 'string', enum: PAYOUT_STATUSES },
    limit: { type: 'string', pattern: '^[0-9]+$' },
    cursor: { type: 'string' },
    ...createdRangeQuery,
  },
} as const;

export const payoutPage = pageSchema(adminPayoutView);

/** One entry of a transaction's history (docs/operator/operations.md, "History of every transaction"). */
export const timelineEvent = {
  type: 'object',
  required: ['at', 'type', 'from', 'to', 'reason', 'actor'],
  properties: {
    at: { type: 'string', format: 'date-time' },
    type: { type: 'string', enum: ['request', 'status', 'error', 'webhook_attempt'] },
    from: { type: ['string', 'null'] },
    to: { type: ['string', 'null'] },
    reason: { type: ['string', 'null'] },
    actor: { type: 'string', description: 'merchant, rail:<name>, worker, operator:<name> or system' },
    utr: { type: 'string', description: "A payout's change to SUCCESS: the transfer's UTR" },
    event_type: { type: 'string', description: 'webhook_attempt: the event delivered' },
    delivery_id: { type: 'string' },
    http_status: { type: ['integer', 'null'] },
    duration_ms: { type: 'integer' },
    error: { type: ['string', 'null'] },
  },
} as const;

/** The webhook deliveries of one transaction, oldest first. */
export const deliverySummary = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      type: { type: 'string' },
      state: { type: 'string', enum: DELIVERY_STATES },
      attempt_count: { type: 'integer' },
      next_attempt_at: { type: ['string', 'null'] },
      last_status: { type: ['integer', 'null'] },
      last_error: { type: ['string', 'null'] },
      waiting_behind: {
        type: ['string', 'null'],
        description: 'the earlier, still pending delivery of this transaction this one waits for',
      },
    },
  },
} as const;

export const payoutTimeline = {
  type: 'object',
  properties: {
    transaction_id: text,
    events: { type: 'array', items: timelineEvent },
    deliveries: deliverySummary,
  },
} as const;

export const payoutResolveBody = {
  type: 'object',
  required: ['status'],
  additionalProperties: false,
  properties: {
    status: { type: 'string', enum: ['SUCCESS', 'FAILED'] },
    utr_number: { type: 'string', minLength: 1, maxLength: 40 },
  },
} as const;

export const payoutReturnBody = {
  type: 'object',
  required: ['reason'],
  additionalProperties: false,
  properties: {
    reason: {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      pattern: '^[^\\u0000-\\u001f\\u007f]*\\S[^\\u0000-\\u001f\\u007f]*$',
      description: 'Why the bank returned it, as the merchant will read it: 1–255 characters, one line',
    },
  },
} as const;

export const ledgerVerification = {
  type: 'object',
  properties: {
    ok: bool,
    wallets_checked: integer,
    mismatches: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          wallet_id: text,
          balance: { type: ['string', 'integer'] },
          ledger_sum: { type: ['string', 'integer'] },
        },
      },
    },
  },
} as const;

// ---- Collections -------------------------------------------------------------------------------------------

export const adminCollectionView = {
  type: 'object',
  properties: {
    ...WIRE_SCHEMAS.CollectionTransaction.properties,
    merchant_id: text,
    callback_url: nullableText,
    scheme: { type: 'string', enum: SCHEME_NAMES },
    psp_reference: nullableText,
    merchant_name: { type: ['string', 'null'], description: 'Operator lists: the merchant’s name' },
  },
} as const;

export const collectionListQuery = {
  type: 'object',
  properties: {
    merchant_id: { type: 'string' },
    status: { type: 'string', enum: COLLECTION_STATUSES },
    sender_id: { type: 'string' },
    limit: { type: 'string', pattern: '^[0-9]+$' },
    cursor: { type: 'string' },
    ...createdRangeQuery,
  },
} as const;

export const collectionPage = pageSchema(adminCollectionView);

export const collectionTimeline = {
  type: 'object',
  properties: { txnId: text, events: { type: 'array', items: timelineEvent } },
} as const;

export const collectionResolveBody = {
  type: 'object',
  required: ['status'],
  additionalProperties: false,
  properties: {
    status: { type: 'string', enum: ['SUCCESS', 'FAILED', 'PENDING'] },
    utr: { type: 'string', pattern: '^[\\x21-\\x7e]{1,40}$', description: 'Bank reference of the payment' },
    reason: {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      pattern: '^[^\\u0000-\\u001f\\u007f]*$',
      description: 'Why (kept in the history)',
    },
  },
} as const;

// ---- Bulk batches ------------------------------------------------------------------------------------------

export const batchView = {
  type: 'object',
  properties: {
    merchant_id: text,
    batch_id: text,
    atomic: bool,
    callback_url: nullableText,
    scheme: { type: 'string', enum: SCHEME_NAMES },
    item_count: integer,
    accepted: integer,
    refused: integer,
    amount_accepted: rupeesText,
    open_items: integer,
    created_at: dateTime,
    completed_at: nullableDateTime,
    merchant_name: { type: ['string', 'null'], description: 'Operator lists: the merchant’s name' },
  },
} as const;

export const batchDetail = {
  type: 'object',
  properties: {
    ...batchView.properties,
    by_status: { type: 'object', additionalProperties: { type: 'integer' } },
    items: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          index: integer,
          sender_id: text,
          resp_code: integer,
          resp_message: text,
          transaction_id: nullableText,
          status: { type: ['string', 'null'], enum: [...PAYOUT_STATUSES, null] },
          status_message: nullableText,
          utr_number: nullableText,
        },
      },
    },
  },
} as const;

export const batchListQuery = {
  type: 'object',
  properties: {
    merchant_id: { type: 'string' },
    limit: { type: 'string', pattern: '^[0-9]+$' },
    cursor: { type: 'string' },
    ...createdRangeQuery,
  },
} as const;

export const batchParams = {
  type: 'object',
  required: ['merchant_id', 'batch_id'],
  properties: { merchant_id: { type: 'string' }, batch_id: { type: 'string' } },
} as const;

export const batchPage = pageSchema(batchView);

// ---- Webhook deliveries ------------------------------------------------------------------------------------

export const deliveryView = {
  type: 'object',
  properties: {
    id: text,
    merchant_id: text,
    subject_id: text,
    type: text,
    url: text,
    state: { type: 'string', enum: DELIVERY_STATES },
    attempt_count: integer,
    next_attempt_at: nullableDateTime,
    last_status: nullableInteger,
    last_error: nullableText,
    created_at: dateTime,
    delivered_at: nullableDateTime,
    attempts: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          attempted_at: dateTime,
          duration_ms: integer,
          http_status: nullableInteger,
          error: nullableText,
        },
      },
    },
  },
} as const;

export const deliveryListQuery = {
  type: 'object',
  properties: {
    merchant_id: { type: 'string' },
    state: { type: 'string', enum: DELIVERY_STATES },
    subject_id: { type: 'string', description: 'transaction_id or txnId' },
    limit: { type: 'string', pattern: '^[0-9]+$' },
    cursor: { type: 'string' },
  },
} as const;

export const deliveryPage = pageSchema(deliveryView);

export const deliveryIdParam = { type: 'object', properties: { id: { type: 'string' } } } as const;

export const deliveryReplayed = { type: 'object', properties: { id: text, state: text } } as const;

export const replayFailedBody = {
  type: 'object',
  required: ['merchant_id', 'since'],
  additionalProperties: false,
  properties: {
    merchant_id: { type: 'string', minLength: 1, maxLength: 40 },
    since: { type: 'string', maxLength: 40, description: 'ISO date-time' },
  },
} as const;

export const failedReplayed = {
  type: 'object',
  properties: { replayed: integer, ids: { type: 'array', items: text } },
} as const;

// ---- Operators and the audit log ---------------------------------------------------------------------------

export const operatorView = {
  type: 'object',
  properties: {
    operator_id: text,
    email: text,
    name: text,
    role: { type: 'string', enum: OPERATOR_ROLES },
    disabled: bool,
    created_by: text,
    created_at: dateTime,
    updated_at: dateTime,
  },
} as const;

export const operatorList = {
  type: 'object',
  properties: { data: { type: 'array', items: operatorView } },
} as const;

export const operatorCreateBody = {
  type: 'object',
  required: ['email', 'role', 'password'],
  additionalProperties: false,
  properties: {
    email: { type: 'string', minLength: 3, maxLength: 254 },
    name: { type: 'string', minLength: 1, maxLength: 200 },
    role: { type: 'string', enum: OPERATOR_ROLES },
    password: { type: 'string', minLength: 1, maxLength: 200 },
  },
} as const;

export const operatorPatchBody = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    role: { type: 'string', enum: OPERATOR_ROLES },
    disabled: { type: 'boolean' },
    password: { type: 'string', minLength: 1, maxLength: 200 },
  },
} as const;

export const operatorIdParam = {
  type: 'object',
  required: ['operator_id'],
  properties: { operator_id: { type: 'string', maxLength: 40 } },
} as const;

export const auditEntry = {
  type: 'object',
  properties: {
    id: text,
    at: dateTime,
    actor: text,
    actor_name: text,
    actor_role: text,
    action: text,
    target: text,
    client_address: text,
    outcome: text,
    http_status: integer,
    detail: text,
    count: { type: 'integer', description: 'A counted row: that many refusals within the minute of `at`' },
  },
} as const;

export const auditQuery = {
  type: 'object',
  properties: {
    ...pageQueryProperties,
    actor: { type: 'string', maxLength: 254 },
  },
} as const;

export const auditPage = pageSchema(auditEntry);

// ---- Console reads: stats and statements -------------------------------------------------------------------

export const statsView = {
  type: 'object',
  properties: {
    window_start: dateTime,
    window_end: dateTime,
    payouts_per_hour: {
      type: 'array',
      items: {
        type: 'object',
        properties: { hour: dateTime },
        additionalProperties: { type: 'integer' },
      },
    },
    payouts_by_status: { type: 'object', additionalProperties: { type: 'integer' } },
    success_rate: { type: ['number', 'null'] },
    webhook_backlog: { type: 'object', properties: { pending: integer, failed: integer } },
    money_on_hold: rupeesText,
    payouts_on_hold: integer,
  },
} as const;

export const statsQuery = {
  type: 'object',
  properties: { merchant_id: { type: 'string', maxLength: 40 } },
} as const;

export const statementQuery = {
  type: 'object',
  properties: {
    from: { type: 'string', maxLength: 40, description: 'ISO date-time, or YYYY-MM-DD (start of that day, IST)' },
    to: {
      type: 'string',
      maxLength: 40,
      description: 'ISO date-time (exclusive), or YYYY-MM-DD (end of that day, IST)',
    },
    format: { type: 'string', enum: ['json', 'csv'] },
  },
} as const;

/** A wallet statement as JSON (`format=csv` answers text/csv with the same columns). */
export const statementView = {
  type: 'object',
  properties: {
    wallet_id: text,
    currency: { type: 'string', const: 'INR' },
    from: nullableDateTime,
    to: nullableDateTime,
    opening_balance: rupeesText,
    total_credits: rupeesText,
    total_debits: rupeesText,
    closing_balance: rupeesText,
    entries: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          entry_id: text,
          created_at: dateTime,
          kind: text,
          amount: rupeesText,
          balance: rupeesText,
          reference: nullableText,
          payout_id: nullableText,
          collection_id: nullableText,
        },
      },
    },
  },
} as const;

// ---- Connectors, reconciliation, bank files ----------------------------------------------------------------

export const connectorList = {
  type: 'object',
  properties: {
    connectors: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: text,
          routes: { type: 'array', items: text },
          capabilities: { type: 'object', additionalProperties: { type: 'boolean' } },
          healthy: bool,
          last_success_at: nullableText,
          last_failure_at: nullableText,
          last_failure: nullableText,
          treasury: {
            type: ['object', 'null'],
            properties: {
              upstream_balance: text,
              read_at: text,
              owed: text,
              coverage: nullableText,
            },
          },
        },
      },
    },
  },
} as const;

const reconTotal = { type: 'object', properties: { count: integer, amount: rupeesText } } as const;

const statementBalance = {
  type: 'object',
  properties: { type: text, balance: rupeesText, date: nullableText },
} as const;

export const reconRunView = {
  type: 'object',
  properties: {
    run_id: text,
    statement: {
      type: 'object',
      properties: {
        statement_id: text,
        account: text,
        format: { type: 'string', enum: ['camt.053', 'mt940'] },
        version: text,
        sha256: text,
        currency: nullableText,
        period_from: nullableText,
        period_to: nullableText,
        opening: statementBalance,
        closing: statementBalance,
        credits: rupeesText,
        debits: rupeesText,
        forward_value: rupeesText,
        entries: integer,
        ignored_entries: integer,
        imported_by: text,
        imported_at: dateTime,
      },
    },
    transactions: integer,
    results: {
      type: 'object',
      description:
        'Per result (matched, amount_mismatch, unmatched, missing, paid_but_refunded, return_not_applied): count and amount',
      additionalProperties: reconTotal,
    },
    forward_value_items: integer,
    open_exceptions: integer,
    created_by: text,
    created_at: dateTime,
  },
} as const;

export const reconItemView = {
  type: 'object',
  properties: {
    item_id: text,
    result: text,
    state: { type: 'string', enum: ['matched', 'open', 'closed'] },
    entry_index: nullableInteger,
    tx_index: nullableInteger,
    direction: { type: ['string', 'null'], enum: ['credit', 'debit', null] },
    amount: { type: ['string', 'null'] },
    currency: nullableText,
    booking_date: nullableText,
    value_date: nullableText,
    forward_value: bool,
    end_to_end_id: nullableText,
    utr: nullableText,
    bank_reference: nullableText,
    return_reason: nullableText,
    remittance: nullableText,
    matched_kind: nullableText,
    payout_id: nullableText,
    collection_id: nullableText,
    wallet_id: nullableText,
    wallet_credit_id: nullableText,
    payrail_amount: { type: ['string', 'null'] },
    note: nullableText,
    closed_by: nullableText,
    closed_reason: nullableText,
    closed_at: nullableDateTime,
  },
} as const;

export const reconImported = {
  type: 'object',
  properties: {
    runs: {
      type: 'array',
      items: {
        type: 'object',
        properties: { ...reconRunView.properties, already_imported: bool },
      },
    },
  },
} as const;

export const reconRunPage = pageSchema(reconRunView);

export const reconRunDetail = {
  type: 'object',
  properties: { ...reconRunView.properties, items: { type: 'array', items: reconItemView } },
} as const;

export const reconRunQuery = {
  type: 'object',
  properties: { ...pageQueryProperties },
} as const;

export const reconRunIdParam = {
  type: 'object',
  required: ['run_id'],
  properties: { run_id: { type: 'string', maxLength: 40 } },
} as const;

export const reconRunDetailQuery = {
  type: 'object',
  properties: { format: { type: 'string', enum: ['json', 'csv'] } },
} as const;

export const reconCloseParams = {
  type: 'object',
  required: ['run_id', 'item_id'],
  properties: {
    run_id: { type: 'string', maxLength: 40 },
    item_id: { type: 'string', pattern: '^[0-9]{1,18}$' },
  },
} as const;

export const reconCloseBody = {
  type: 'object',
  required: ['reason'],
  additionalProperties: false,
  properties: { reason: { type: 'string', minLength: 1, maxLength: 1000 } },
} as const;

export const bankFileLimitQuery = {
  type: 'object',
  // Text like every other list's limit: the server does not coerce query strings, so an integer schema refused
  // `?limit=5` with 400. Clamped to 1–500, default 100, by the route (pageLimit).
  properties: { limit: { type: 'string', pattern: '^[0-9]{1,6}$' } },
} as const;

export const bankFileList = {
  type: 'object',
  properties: {
    data: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          msg_id: text,
          file_name: text,
          created_at: text,
          delivered_at: nullableText,
          payout_count: integer,
          ctrl_sum: text,
          payout_states: { type: 'object', additionalProperties: { type: 'integer' } },
        },
      },
    },
  },
} as const;

export const bankFileInboundList = {
  type: 'object',
  properties: {
    data: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: text,
          sha256: text,
          message_type: nullableText,
          state: { type: 'string', enum: ['applied', 'failed'] },
          reason: nullableText,
          entries: integer,
          refused: integer,
          received_at: text,
        },
      },
    },
  },
} as const;

export const bankFileParams = {
  type: 'object',
  properties: { msg_id: { type: 'string' } },
  required: ['msg_id'],
} as const;
