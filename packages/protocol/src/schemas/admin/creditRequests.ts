import {
  bool,
  dateTime,
  idParams,
  nullableDateTime,
  nullableText,
  pageQueryProperties,
  pageSchema,
  rupeesText,
  text,
} from '../common.ts';

/** Credit requests (maker ≠ checker): a credit waiting for a second operator. */

export const CREDIT_REQUEST_STATUSES = ['pending', 'approved', 'rejected'] as const;

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
    merchant_id: { ...text, description: 'The list: the merchant whose wallet the request credits' },
    merchant_name: { ...text, description: "The list: that merchant's name" },
    approval: {
      type: 'object',
      description:
        'The list: whether the operator reading it may approve this request, by the rule approving applies ' +
        '(finance role or above, still pending, not the requester, independent of the requester by approval ' +
        'lineage); `refusal` names the rule that forbids it (the error code approving would answer), null when allowed',
      properties: {
        allowed: bool,
        refusal: {
          type: ['string', 'null'],
          enum: ['forbidden', 'not_pending', 'same_operator', 'lineage_conflict', null],
        },
        requester_lineage: {
          type: 'array',
          items: text,
          description: "The requester's grants: who created, promoted, re-enabled them or set their password",
        },
        your_lineage: { type: 'array', items: text, description: "The reader's own grants, alike" },
      },
    },
  },
} as const;

export const creditRequestQuery = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: CREDIT_REQUEST_STATUSES },
    ...pageQueryProperties,
  },
} as const;

export const creditRequestIdParam = idParams('credit_request_id', { type: 'string', maxLength: 40 });

export const creditRequestPage = pageSchema(creditRequestView);
