/** Schema pieces shared by the operator routes. */
export const adminRouteOptions = { config: { errorStyle: 'admin' as const } };

export const adminError = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: { code: { type: 'string' }, message: { type: 'string' } },
      required: ['code', 'message'],
    },
  },
} as const;

export const adminErrorResponses = {
  400: adminError,
  401: adminError,
  404: adminError,
  409: adminError,
} as const;

export const amountText = {
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
