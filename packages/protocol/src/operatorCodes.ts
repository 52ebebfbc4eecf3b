/**
 * Error codes of the operator side (docs/operator/admin-api.md): the admin API, the console's routes, the PSP and
 * upstream notification routes and the operational routes answer `{"error": {"code", "message"}}` with one of these
 * codes and the HTTP status beside it here. Unlike a merchant code (codes.ts), an operator code means one thing and
 * has one status wherever it is answered, so this is one table for every route. The server's AdminError and error
 * handler, the admin error schema of the OpenAPI document (its `enum`), the admin API reference's error table and the
 * CLI's exit codes all read it; packages/server/test/ci/operatorCodes.test.ts fails on a copy that drifts.
 */
export interface OperatorCodeDef {
  readonly http: number;
  /** One line: when the code is answered. */
  readonly meaning: string;
}

export const OPERATOR_CODES = {
  invalid_request: { http: 400, meaning: 'a field, parameter, cursor or path is malformed (the message names it)' },
  invalid_statement: {
    http: 400,
    meaning: 'a bank statement file that cannot be read (the message says what and where)',
  },
  invalid_pricing: {
    http: 400,
    meaning: 'a pricing plan that breaks a rule (the message names the field, e.g. `rules.IMPS.slabs[1].up_to`)',
  },
  unauthorized: { http: 401, meaning: 'no or wrong admin token, or no console session' },
  invalid_credentials: { http: 401, meaning: 'a console sign-in with a wrong e-mail address, password or key' },
  signature_required: { http: 401, meaning: 'a PSP notification without the Payrail-Signature header' },
  signature_invalid: { http: 401, meaning: 'a notification whose signature is malformed or does not match the body' },
  signature_expired: { http: 401, meaning: 'a PSP notification signed more than 300 seconds from the server’s clock' },
  forbidden: { http: 403, meaning: 'the operator’s role does not allow the action' },
  csrf_failed: { http: 403, meaning: 'a console request without its CSRF token, or from another site' },
  same_operator: { http: 403, meaning: 'a credit request approved by the operator who made it (maker ≠ checker)' },
  lineage_conflict: { http: 403, meaning: 'a credit request approved by an operator linked to its requester' },
  not_found: {
    http: 404,
    meaning: 'the merchant, wallet, payout, collection, batch, delivery or other item does not exist',
  },
  no_pricing: { http: 404, meaning: 'the merchant has no pricing plan' },
  route_not_found: { http: 404, meaning: 'no route or console file at this method and path' },
  invalid_state: {
    http: 409,
    meaning: 'a move the lifecycle refuses from the item’s current state (nothing changed)',
  },
  invalid_transition: { http: 409, meaning: 'a collection notification the transition table refuses' },
  refused: { http: 409, meaning: 'a payout notification the lifecycle refuses' },
  utr_conflict: { http: 409, meaning: 'a SUCCESS with another UTR than the recorded one' },
  utr_required: { http: 409, meaning: 'a collection notification of SUCCESS without a UTR in live mode' },
  reference_conflict: {
    http: 409,
    meaning: 'a credit `reference` reused with another amount, or a PSP reference that belongs to another item',
  },
  duplicate_reference: { http: 409, meaning: 'the reference of a credit request has already been credited' },
  already_resolved: { http: 409, meaning: 'an exception resolved already' },
  action_not_allowed: { http: 409, meaning: 'an action the exception’s kind does not allow' },
  already_closed: { http: 409, meaning: 'a reconciliation exception closed already' },
  not_an_exception: { http: 409, meaning: 'closing a reconciliation item that matched' },
  invoice_settings_missing: {
    http: 409,
    meaning: 'invoices cannot be issued before the operator’s legal name, GSTIN, address and state are set',
  },
  operator_exists: { http: 409, meaning: 'an operator with this e-mail address exists' },
  own_account: { http: 409, meaning: 'an admin changing their own role or disabling themselves' },
  body_too_large: { http: 413, meaning: 'a body over the route’s limit (64 KiB; 20 MiB for a statement)' },
  uri_too_long: { http: 414, meaning: 'a path parameter too long' },
  unsupported_media_type: { http: 415, meaning: 'a body in a media type the route does not read (forms included)' },
  balance_overflow: { http: 422, meaning: 'a credit that would take the balance beyond what a wallet can hold' },
  insufficient_balance: {
    http: 422,
    meaning: 'a lien placed, approved or enforced beyond what the wallet can spend (balance minus its active liens)',
  },
  no_settlement_account: {
    http: 422,
    meaning:
      'a settlement for a merchant without an active settlement account (none, or a changed one in its 24 hours)',
  },
  nothing_to_settle: {
    http: 422,
    meaning: 'a settlement with nothing settleable within the available balance (or less than the amount asked)',
  },
  verification_failed: { http: 422, meaning: 'a settlement account that beneficiary verification refused' },
  statement_unbalanced: { http: 422, meaning: 'a bank statement whose balances do not add up' },
  amount_mismatch: { http: 422, meaning: 'a collection notification with another amount (never credited)' },
  rate_limited: {
    http: 429,
    meaning: 'too many requests, or failed authentications from this address; retry after `Retry-After`',
  },
  too_many_attempts: { http: 429, meaning: 'too many failed console sign-ins; retry after `Retry-After`' },
  internal: { http: 500, meaning: 'an unexpected server error (logged, without a stack trace in the answer)' },
  unavailable: { http: 503, meaning: 'the database cannot be reached; retry after `Retry-After`' },
} as const satisfies Record<string, OperatorCodeDef>;

/** An operator error code: a key of the table, and nothing else. */
export type OperatorCode = keyof typeof OPERATOR_CODES;

/** The HTTP statuses the table gives its codes. */
export type OperatorStatus = (typeof OPERATOR_CODES)[OperatorCode]['http'];

/** Every operator code, in the table's order (the `enum` of the admin error schema). */
export const OPERATOR_CODE_NAMES = Object.keys(OPERATOR_CODES) as readonly OperatorCode[];

/** Whether a string is one of the table's codes (an answer read by a client). */
export function isOperatorCode(code: unknown): code is OperatorCode {
  return typeof code === 'string' && Object.hasOwn(OPERATOR_CODES, code);
}
