import {
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
