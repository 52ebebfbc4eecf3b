import { bool, dateTime, idParams, text } from '../common.ts';

/** Operators of the console: create, list, change. */

export const OPERATOR_ROLES = ['viewer', 'finance', 'admin'] as const;

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

export const operatorIdParam = idParams('operator_id', { type: 'string', maxLength: 40 });
