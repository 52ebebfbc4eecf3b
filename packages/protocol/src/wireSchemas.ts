import {
  COLLECTION_STATUSES,
  COLLECTION_TXN_TYPES,
  NAME_MATCH_RESULTS,
  PAYMENT_MODES,
  PAYOUT_STATUSES,
  WEBHOOK_EVENT_TYPES,
} from './wireVocabulary.ts';

/**
 * JSON Schemas (2020-12, as OpenAPI 3.1 uses) of the decrypted plaintexts: what goes inside an encrypted
 * `payload` and comes out of an encrypted `data`. The server publishes them in its OpenAPI document, and the wire
 * types (wire.ts) are made of them (FromSchema): a field's name, type and whether it is always there are written
 * here only.
 */
const amountText = { type: 'string', pattern: '^[0-9]+\\.[0-9]{2}$', examples: ['100.00'] } as const;
const isoTime = { type: 'string', format: 'date-time', examples: ['2026-11-22T10:15:30.123Z'] } as const;

export const WIRE_SCHEMAS = {
  TokenRequestV2: {
    $id: 'TokenRequestV2',
    type: 'object',
    description: 'Body of POST /v1/auth/client-token (plain JSON).',
    required: ['apiKey', 'secretKey'],
    properties: {
      apiKey: { type: 'string', minLength: 32, maxLength: 32 },
      secretKey: { type: 'string', minLength: 16, maxLength: 16 },
    },
    examples: [{ apiKey: 'L1EdTopvlZcEzAvp1QdrZjbh1YHqwn5n', secretKey: 'Wbm4PeK4oFpm8qCI' }],
  },
  TokenRequestV1Plaintext: {
    $id: 'TokenRequestV1Plaintext',
    type: 'object',
    description:
      'Plaintext of `payload` of POST /v1/auth/clients/token, encrypted with V1; apiKey must equal X-Api-Key.',
    required: ['apiKey', 'secretKey'],
    properties: { apiKey: { type: 'string' }, secretKey: { type: 'string' } },
  },
  TokenData: {
    $id: 'TokenData',
    type: 'object',
    description: 'Decrypted `data` of a token response.',
    required: ['token'],
    properties: { token: { type: 'string', description: 'Bearer JWT (HS256)' } },
  },
  PayoutInitiateRequest: {
    $id: 'PayoutInitiateRequest',
    type: 'object',
    description:
      'Plaintext of `payload` of POST /payout/v1/initiate. Nested shape shown; the flat shape puts beneficiary_name, beneficiary_acc_number and beneficiary_ifsc at the top level instead of `beneficiary`. `amount` may be decimal text or a JSON number (rupees, at most two decimals).',
    required: ['sender_id', 'wallet_id', 'payment_mode', 'amount'],
    properties: {
      sender_id: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,50}$' },
      wallet_id: { type: 'string', pattern: '^WL[0-9A-HJKMNP-TV-Z]{26}$' },
      payment_mode: { type: 'string', enum: PAYMENT_MODES },
      amount: { oneOf: [{ type: 'string', pattern: '^[0-9]+(\\.[0-9]{1,2})?$' }, { type: 'number' }] },
      beneficiary: {
        type: 'object',
        required: ['beneficiary_name', 'beneficiary_acc_number', 'beneficiary_ifsc'],
        properties: {
          beneficiary_name: { type: 'string', maxLength: 100 },
          beneficiary_acc_number: { type: 'string', pattern: '^[0-9]{9,18}$' },
          beneficiary_ifsc: { type: 'string', pattern: '^[A-Z]{4}0[A-Z0-9]{6}$' },
        },
      },
      remarks: { type: 'string', maxLength: 255 },
      callback_url: { type: 'string', format: 'uri', maxLength: 2048 },
    },
    examples: [
      {
        sender_id: 'order-1001',
        wallet_id: 'WL01JD3K8Q5W2V7X9Y0Z1A2B3C4D',
        payment_mode: 'IMPS',
        amount: '100.00',
        beneficiary: {
          beneficiary_name: 'Asha Rao',
          beneficiary_acc_number: '100000000001',
          beneficiary_ifsc: 'SBOX0000001',
        },
        remarks: 'Refund for order 1001',
        callback_url: 'https://merchant.example/webhooks/payrail',
      },
    ],
  },
  PayoutTransaction: {
    $id: 'PayoutTransaction',
    type: 'object',
    description: 'Decrypted `data` of payout initiation and status, and of payout.* webhooks.',
    required: [
      'transaction_id',
      'sender_id',
      'wallet_id',
      'amount',
      'fees',
      'tax',
      'payment_mode',
      'remarks',
      'status',
      'status_message',
      'utr_number',
      'callback_url',
      'beneficiary',
      'timestamps',
    ],
    properties: {
      transaction_id: { type: 'string', pattern: '^PT[0-9A-HJKMNP-TV-Z]{26}$' },
      sender_id: { type: 'string' },
      wallet_id: { type: 'string' },
      amount: amountText,
      fees: {
        ...amountText,
        description: 'The fee charged on this payout by the pricing plan ("0.00" without one); kept after a refund',
      },
      tax: { ...amountText, description: 'GST charged on the fee ("0.00" without a plan)' },
      payment_mode: { type: 'string', enum: PAYMENT_MODES },
      remarks: { type: 'string' },
      status: { type: 'string', enum: PAYOUT_STATUSES },
      status_message: { type: 'string' },
      utr_number: { type: 'string', description: 'Empty until the bank gives one' },
      callback_url: { type: 'string' },
      beneficiary: {
        type: 'object',
        required: ['beneficiary_name', 'beneficiary_acc_number', 'beneficiary_ifsc', 'bank_name'],
        properties: {
          beneficiary_name: { type: 'string' },
          beneficiary_acc_number: { type: 'string' },
          beneficiary_ifsc: { type: 'string' },
          bank_name: { type: 'string' },
        },
      },
      timestamps: {
        type: 'object',
        required: ['created_at', 'updated_at'],
        properties: { created_at: isoTime, updated_at: isoTime },
      },
    },
  },
  Balance: {
    $id: 'Balance',
    type: 'object',
    description:
      'Decrypted `data` of GET /payout/v1/balance. `balance` is the ledger balance; `available_balance` what can be spent now (`balance` minus `on_lien`: equal to `balance` without liens); `on_hold` is the sum of payouts not yet final.',
    required: ['wallet_id', 'balance', 'available_balance', 'on_lien', 'on_hold', 'currency', 'updated_at'],
    properties: {
      wallet_id: { type: 'string' },
      balance: amountText,
      available_balance: {
        ...amountText,
        description:
          'What can be spent now: `balance` minus active liens (the same value as `balance` without liens; the name existing integrations read)',
      },
      on_lien: { ...amountText, description: 'The sum of the active liens an operator holds on the wallet' },
      on_hold: amountText,
      currency: { type: 'string', const: 'INR' },
      updated_at: isoTime,
    },
    examples: [
      {
        wallet_id: 'WL01JD3K8Q5W2V7X9Y0Z1A2B3C4D',
        balance: '900.00',
        available_balance: '900.00',
        on_lien: '0.00',
        on_hold: '100.00',
        currency: 'INR',
        updated_at: '2026-11-22T10:15:30.123Z',
      },
    ],
  },
  CollectionInitiateRequest: {
    $id: 'CollectionInitiateRequest',
    type: 'object',
    description:
      'Plaintext of `payload` of POST /collection/v1/initiate. `requestAmount` is required; `amount` is accepted as its alias (both given and different: 4110).',
    required: ['senderId'],
    properties: {
      senderId: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,50}$' },
      requestAmount: { type: 'string', pattern: '^[0-9]+(\\.[0-9]{1,2})?$', description: '1.00 to 100000.00' },
      amount: { type: 'string', pattern: '^[0-9]+(\\.[0-9]{1,2})?$', description: 'Alias of requestAmount' },
      vpa: {
        type: 'string',
        description:
          "Payee UPI address. Sandbox: any well-formed address; live: one of the merchant's registered addresses. Default: the merchant's configured address",
      },
      txnType: { type: 'string', enum: COLLECTION_TXN_TYPES, description: 'Default INTENT; COLLECT needs payerVpa' },
      channel: { type: 'string', maxLength: 20, description: 'Free text, recorded and echoed' },
      remarks: { type: 'string', maxLength: 255 },
      walletId: { type: 'string', description: "Default: the merchant's first wallet" },
      callbackUrl: { type: 'string', format: 'uri', maxLength: 2048 },
      payerVpa: { type: 'string', description: "Payer's UPI address; needed by COLLECT" },
    },
    examples: [
      {
        senderId: 'inv-2001',
        requestAmount: '250.50',
        vpa: 'shop@okbank',
        txnType: 'INTENT',
        channel: 'web',
        remarks: 'Invoice 2001',
        callbackUrl: 'https://merchant.example/webhooks/payrail',
      },
    ],
  },
  CollectionStatusRequest: {
    $id: 'CollectionStatusRequest',
    type: 'object',
    description: 'Plaintext of `payload` of POST /collection/v1/status: exactly one of txnId and senderId.',
    properties: {
      txnId: { type: 'string', pattern: '^CT[0-9A-HJKMNP-TV-Z]{26}$' },
      senderId: { type: 'string' },
    },
    examples: [{ senderId: 'inv-2001' }],
  },
  CollectionTransaction: {
    $id: 'CollectionTransaction',
    type: 'object',
    description:
      'Decrypted `data` of collection status, creation (plus intentUrl), simulation and collection.* webhooks. Every one carries paymentUrl.',
    required: [
      'senderId',
      'txnId',
      'walletId',
      'requestAmount',
      'fees',
      'tax',
      'paymentMode',
      'payerVpa',
      'vpa',
      'txnType',
      'channel',
      'utr',
      'remarks',
      'status',
      'statusMessage',
      'expiresAt',
      'createdAt',
      'updatedAt',
      'paymentUrl',
    ],
    properties: {
      senderId: { type: 'string' },
      txnId: { type: 'string', pattern: '^CT[0-9A-HJKMNP-TV-Z]{26}$' },
      walletId: { type: 'string' },
      requestAmount: amountText,
      fees: {
        ...amountText,
        description: 'The fee charged when the collection succeeded ("0.00" until then, and without a pricing plan)',
      },
      tax: { ...amountText, description: 'GST charged on the fee' },
      paymentMode: { type: 'string', examples: ['Intent', 'Collect'] },
      payerVpa: { type: 'string' },
      vpa: { type: 'string', description: 'Payee UPI address' },
      txnType: { type: 'string', enum: COLLECTION_TXN_TYPES },
      channel: { type: 'string' },
      utr: { type: 'string' },
      remarks: { type: 'string' },
      status: { type: 'string', enum: COLLECTION_STATUSES },
      statusMessage: { type: 'string' },
      expiresAt: isoTime,
      createdAt: isoTime,
      updatedAt: isoTime,
      paymentUrl: {
        type: 'string',
        description: "Payrail's hosted payment page (PAYRAIL_PUBLIC_URL/pay/{token}, unguessable)",
        examples: ['https://pay.example.com/pay/3q2-7wEjbU5c0aZk1Xy9Pf4nLr8TmQvB'],
      },
      intentUrl: {
        type: 'string',
        examples: [
          'upi://pay?pa=shop@okbank&pn=Shop&am=250.50&tr=CT01JD3K8Q5W2V7X9Y0Z1A2B3C4D&tn=Invoice%202001&cu=INR',
        ],
      },
    },
  },
  BulkPayoutRequest: {
    $id: 'BulkPayoutRequest',
    type: 'object',
    description:
      'Plaintext of `payload` of POST /payout/v1/bulk. `items`: 1 to 1,000 PayoutInitiateRequest plaintexts (nested or flat), each with its own sender_id, applied in order. `atomic`: all or nothing (4018). `dry_run`: the verdicts a real run would give now, nothing recorded. `callback_url` receives payout.batch.completed.',
    required: ['batch_id', 'items'],
    properties: {
      batch_id: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,50}$', description: 'Unique per merchant' },
      items: { type: 'array', minItems: 1, maxItems: 1000, items: { $ref: 'PayoutInitiateRequest#' } },
      dry_run: { type: 'boolean', default: false },
      atomic: { type: 'boolean', default: false },
      callback_url: { type: 'string', format: 'uri', maxLength: 2048 },
    },
  },
  BulkPayoutResult: {
    $id: 'BulkPayoutResult',
    type: 'object',
    description:
      'Decrypted `data` of POST /payout/v1/bulk (2000, 4018, and 4009 where it is the existing batch). One verdict per item, in order: resp_code 2000 with transaction_id and status when initiated, else the code a single initiation would have got. In a dry run or a 4018 answer nothing was recorded: passing items carry 2000 and no transaction_id.',
    required: ['batch_id', 'dry_run', 'atomic', 'summary', 'items'],
    properties: {
      batch_id: { type: 'string' },
      dry_run: { type: 'boolean' },
      atomic: { type: 'boolean' },
      summary: {
        type: 'object',
        required: ['accepted', 'refused', 'amount_accepted', 'fees', 'tax'],
        properties: {
          accepted: { type: 'integer' },
          refused: { type: 'integer' },
          amount_accepted: { ...amountText, description: "Sum of the accepted items' amounts" },
          fees: { ...amountText, description: "Sum of the accepted items' fees (a dry run: what they would be)" },
          tax: { ...amountText, description: "Sum of the GST on the accepted items' fees" },
        },
      },
      items: {
        type: 'array',
        items: {
          type: 'object',
          required: ['index', 'sender_id', 'resp_code', 'resp_message'],
          properties: {
            index: { type: 'integer', description: 'Position in the request, from 0' },
            sender_id: { type: 'string' },
            resp_code: { type: 'integer' },
            resp_message: { type: 'string' },
            transaction_id: { type: 'string', pattern: '^PT[0-9A-HJKMNP-TV-Z]{26}$' },
            status: { type: 'string', enum: PAYOUT_STATUSES },
            fees: { ...amountText, description: 'An accepted item: its fee (a dry run: what it would be)' },
            tax: { ...amountText, description: 'An accepted item: the GST on its fee' },
          },
        },
      },
    },
  },
  BulkPayoutStatus: {
    $id: 'BulkPayoutStatus',
    type: 'object',
    description:
      "Decrypted `data` of GET /payout/v1/bulk/status: the batch summary with its payouts counted by status, and one page of items with their payouts' current state (`next_cursor` fetches the next page). Also the `data` of payout.batch.completed (without items, has_more and next_cursor).",
    required: ['batch_id', 'atomic', 'created_at', 'completed_at', 'summary'],
    properties: {
      batch_id: { type: 'string' },
      atomic: { type: 'boolean' },
      created_at: isoTime,
      completed_at: {
        type: ['string', 'null'],
        format: 'date-time',
        description: 'When every accepted item became final (SUCCESS or REFUNDED); null until then',
      },
      summary: {
        type: 'object',
        required: ['items', 'accepted', 'refused', 'amount_accepted', 'by_status'],
        properties: {
          items: { type: 'integer' },
          accepted: { type: 'integer' },
          refused: { type: 'integer' },
          amount_accepted: amountText,
          by_status: {
            type: 'object',
            propertyNames: { enum: PAYOUT_STATUSES },
            additionalProperties: { type: 'integer' },
          },
        },
      },
      items: {
        type: 'array',
        items: {
          type: 'object',
          required: ['index', 'sender_id', 'resp_code', 'resp_message'],
          properties: {
            index: { type: 'integer' },
            sender_id: { type: 'string' },
            resp_code: { type: 'integer' },
            resp_message: { type: 'string' },
            transaction_id: { type: 'string' },
            status: { type: 'string', enum: PAYOUT_STATUSES },
            status_message: { type: 'string' },
            utr_number: { type: 'string' },
          },
        },
      },
      has_more: { type: 'boolean' },
      next_cursor: { type: ['string', 'null'] },
    },
  },
  BeneficiaryVerifyRequest: {
    $id: 'BeneficiaryVerifyRequest',
    type: 'object',
    description:
      'Plaintext of `payload` of POST /payout/v1/beneficiary/verify; the same field rules as initiation (4003, 4007, 4008).',
    required: ['beneficiary_name', 'beneficiary_acc_number', 'beneficiary_ifsc'],
    properties: {
      beneficiary_name: { type: 'string', maxLength: 100 },
      beneficiary_acc_number: { type: 'string', pattern: '^[0-9]{9,18}$' },
      beneficiary_ifsc: { type: 'string', pattern: '^[A-Z]{4}0[A-Z0-9]{6}$' },
    },
    examples: [
      { beneficiary_name: 'Rahul K. Verma', beneficiary_acc_number: '100000000005', beneficiary_ifsc: 'SBOX0000001' },
    ],
  },
  BeneficiaryVerification: {
    $id: 'BeneficiaryVerification',
    type: 'object',
    description:
      'Decrypted `data` of POST /payout/v1/beneficiary/verify. Bands: 100 EXACT_MATCH, 80-99 GOOD_PARTIAL_MATCH, 60-79 MODERATE_PARTIAL_MATCH, 40-59 POOR_PARTIAL_MATCH, 0-39 NO_MATCH.',
    required: [
      'verification_id',
      'account_status',
      'name_at_bank',
      'name_match_score',
      'name_match_result',
      'bank_name',
      'utr',
      'created_at',
    ],
    properties: {
      verification_id: { type: 'string', pattern: '^BV[0-9A-HJKMNP-TV-Z]{26}$' },
      account_status: { type: 'string', enum: ['VALID', 'INVALID'] },
      name_at_bank: { type: 'string' },
      name_match_score: { type: 'integer', minimum: 0, maximum: 100 },
      name_match_result: { type: 'string', enum: NAME_MATCH_RESULTS },
      bank_name: { type: 'string' },
      utr: { type: 'string' },
      created_at: isoTime,
    },
  },
  SettlementInitiateRequest: {
    $id: 'SettlementInitiateRequest',
    type: 'object',
    description:
      'Plaintext of `payload` of POST /settlement/v1/initiate. Without `amount`, everything settleable now; with it, exactly that much (4002 when less can be settled).',
    required: ['wallet_id'],
    properties: {
      wallet_id: { type: 'string', pattern: '^WL[0-9A-HJKMNP-TV-Z]{26}$' },
      amount: { oneOf: [{ type: 'string', pattern: '^[0-9]+(\\.[0-9]{1,2})?$' }, { type: 'number' }] },
    },
    examples: [{ wallet_id: 'WL01JD3K8Q5W2V7X9Y0Z1A2B3C4D' }],
  },
  Settlement: {
    $id: 'Settlement',
    type: 'object',
    description:
      "Decrypted `data` of POST /settlement/v1/initiate and GET /settlement/v1/status, and of the settlement.* webhooks (which carry no `collections` list: `collection_count` says how many). A settlement is paid by an ordinary payout (`payout_id`, whose `sender_id` is the `settlement_id`); `state` is that payout's status.",
    required: [
      'settlement_id',
      'merchant_id',
      'wallet_id',
      'amount',
      'fees',
      'tax',
      'state',
      'payout_id',
      'payment_mode',
      'utr',
      'trigger',
      'collection_count',
      'created_at',
      'updated_at',
    ],
    properties: {
      settlement_id: { type: 'string', pattern: '^ST[0-9A-HJKMNP-TV-Z]{26}$' },
      merchant_id: { type: 'string' },
      wallet_id: { type: 'string' },
      amount: { ...amountText, description: 'Paid to the settlement account' },
      fees: { ...amountText, description: 'The fees of the collections it covers (charged when they were credited)' },
      tax: { ...amountText, description: 'The GST on those fees' },
      state: { type: 'string', enum: PAYOUT_STATUSES },
      payout_id: { type: 'string', pattern: '^PT[0-9A-HJKMNP-TV-Z]{26}$' },
      payment_mode: { type: 'string', enum: PAYMENT_MODES },
      utr: { type: 'string', description: 'The bank reference of the transfer; empty until the bank gives one' },
      trigger: { type: 'string', enum: ['manual', 'daily', 'instant'] },
      collection_count: { type: 'integer' },
      collections: {
        type: 'array',
        items: {
          type: 'object',
          required: ['collection_id', 'amount', 'fee', 'tax', 'net'],
          properties: {
            collection_id: { type: 'string' },
            amount: amountText,
            fee: amountText,
            tax: amountText,
            net: { ...amountText, description: 'The part of the collection this settlement pays out' },
          },
        },
      },
      created_at: isoTime,
      updated_at: isoTime,
    },
  },
  SettlementHistory: {
    $id: 'SettlementHistory',
    type: 'object',
    description: 'Decrypted `data` of GET /settlement/v1/history: the settlements created in the range, newest first.',
    required: ['settlements'],
    properties: { settlements: { type: 'array', items: { $ref: 'Settlement' } } },
  },
  WebhookEvent: {
    $id: 'WebhookEvent',
    type: 'object',
    description:
      'Body POSTed to a callback URL, signed per Standard Webhooks (headers webhook-id, webhook-timestamp, webhook-signature). `data` is the transaction object encrypted with the scheme that created the transaction.',
    required: ['id', 'type', 'created_at', 'data'],
    properties: {
      id: { type: 'string', pattern: '^EV[0-9A-HJKMNP-TV-Z]{26}$' },
      type: {
        type: 'string',
        enum: WEBHOOK_EVENT_TYPES,
      },
      created_at: isoTime,
      data: { type: 'string' },
    },
  },
} as const;
