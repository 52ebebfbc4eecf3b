import { OPERATOR_CODE_NAMES } from '../operatorCodes.ts';

/**
 * Pieces shared by the route schemas of this folder: plain JSON Schema objects (`as const`), the same objects
 * the server validates with, serializes with and publishes in its OpenAPI document.
 */
export const text = { type: 'string' } as const;
export const nullableText = { type: ['string', 'null'] } as const;
export const integer = { type: 'integer' } as const;
export const nullableInteger = { type: ['integer', 'null'] } as const;
export const bool = { type: 'boolean' } as const;
export const dateTime = { type: 'string', format: 'date-time' } as const;
export const nullableDateTime = { type: ['string', 'null'], format: 'date-time' } as const;
/** Rupees as decimal text with two fraction digits, as every answer writes an amount. */
export const rupeesText = { type: 'string', pattern: '^-?[0-9]+\\.[0-9]{2}$' } as const;

/** The error body of the operator, console, PSP and operational routes: `code` is one of OPERATOR_CODES. */
export const adminError = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: { code: { type: 'string', enum: OPERATOR_CODE_NAMES }, message: { type: 'string' } },
      required: ['code', 'message'],
    },
  },
} as const;

/** One page of a cursor-paginated list: `next_cursor` fetches the next page while `has_more`. */
export function pageSchema<const I>(items: I) {
  return {
    type: 'object',
    required: ['data', 'has_more', 'next_cursor'],
    properties: {
      data: { type: 'array', items },
      has_more: { type: 'boolean' },
      next_cursor: { type: ['string', 'null'] },
    },
  } as const;
}

/** `{ data: [...] }` without pagination. */
export function listSchema<const I>(items: I) {
  return { type: 'object', required: ['data'], properties: { data: { type: 'array', items } } } as const;
}

/** A body that is not JSON (HTML, SVG, PNG, CSV, XML, metrics text): documented, never serialized. */
export function textBody<const D extends string>(description: D) {
  return { description, type: 'string' } as const;
}

/** The 204 of a route that answers no body. */
export const noContent = { type: 'null', description: 'No content' } as const;

/** `limit` and `cursor` of every list route's query (the server's readPage); a list may lengthen `cursor`. */
export const pageQueryProperties = {
  limit: { type: 'string', pattern: '^[0-9]+$' },
  cursor: { type: 'string', maxLength: 100 },
} as const;

/** `from` and `to` of a list's query string: IST calendar days, both inclusive. */
export const createdRangeQuery = {
  from: { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: 'first IST day (YYYY-MM-DD)' },
  to: { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: 'last IST day, inclusive' },
} as const;

/** An object of one required path parameter. */
export function idParams<const K extends string, const P>(name: K, property: P) {
  return { type: 'object', required: [name], properties: { [name]: property } as Record<K, P> } as const;
}
