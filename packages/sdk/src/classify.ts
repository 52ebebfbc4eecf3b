import {
  AuthenticationError,
  BankRejectedError,
  BatchRejectedError,
  BankUnavailableError,
  ConflictError,
  DecryptionError,
  InsufficientFundsError,
  LimitExceededError,
  NotFoundError,
  PayrailError,
  RateLimitError,
  ServerError,
  ValidationError,
  type Operation,
  type PayrailErrorOptions,
} from './errors.ts';

/** Codes are contextual (docs/api-reference.md): 4008 is a bad account number on payouts and a bad token on collections. */
export type ApiFamily = 'token' | 'payout' | 'collection';

export interface Refusal {
  family: ApiFamily;
  operation: Operation;
  httpStatus: number;
  /** Envelope code, or the admin-style text code, or undefined when the body had none. */
  code: number | string | undefined;
  message: string;
  retryAfterMs?: number;
  requestId?: string;
  existing?: unknown;
}

type ErrorClass = new (options: PayrailErrorOptions) => PayrailError;

const PAYOUT: Record<number, ErrorClass> = {
  4000: ValidationError,
  4001: AuthenticationError,
  4002: InsufficientFundsError,
  4003: ValidationError,
  4004: ValidationError,
  4005: ValidationError,
  4006: ValidationError,
  4007: ValidationError,
  4008: ValidationError,
  4010: LimitExceededError,
  4011: LimitExceededError,
  4012: ValidationError,
  4013: BankRejectedError,
  4015: BankRejectedError,
  4016: ValidationError,
  4017: ValidationError,
  4018: BatchRejectedError,
  4019: ValidationError,
  4101: ValidationError,
  4102: ValidationError,
  4103: NotFoundError,
  4201: ValidationError,
  4202: NotFoundError,
};

const COLLECTION: Record<number, ErrorClass> = {
  4000: ValidationError,
  4008: AuthenticationError,
  4014: DecryptionError,
  4103: ValidationError,
  4104: NotFoundError,
  4105: ValidationError,
  4107: NotFoundError,
  4110: ValidationError,
  4111: ValidationError,
};

const TOKEN: Record<number, ErrorClass> = { 4001: AuthenticationError, 4000: AuthenticationError };

function byHttpStatus(status: number): ErrorClass {
  if (status === 401 || status === 403) return AuthenticationError;
  if (status === 404) return NotFoundError;
  if (status === 400 || status === 413 || status === 422) return ValidationError;
  return ServerError;
}

/** The error class of a refused request: by the envelope code in its context, else by the HTTP status. */
export function toError(r: Refusal): PayrailError {
  const options: PayrailErrorOptions = {
    code: r.code ?? `HTTP_${r.httpStatus}`,
    message: r.message || `HTTP ${r.httpStatus}`,
    operation: r.operation,
    httpStatus: r.httpStatus,
    requestId: r.requestId,
  };
  const code = typeof r.code === 'number' ? r.code : undefined;
  if (code === 4290 || r.httpStatus === 429) return new RateLimitError({ ...options, retryAfterMs: r.retryAfterMs });
  if (code === 4014) return bankDown(r) ? new BankUnavailableError(options) : new DecryptionError(options);
  if (code === 5000 || r.httpStatus >= 500) return new ServerError(options);
  if ((code === 4009 && r.family === 'payout') || ((code === 4112 || code === 4113) && r.family === 'collection')) {
    return new ConflictError({ ...options, existing: r.existing });
  }
  if (r.httpStatus === 409) return new ConflictError({ ...options, existing: r.existing });
  const table = r.family === 'payout' ? PAYOUT : r.family === 'collection' ? COLLECTION : TOKEN;
  const cls = (code !== undefined ? table[code] : undefined) ?? byHttpStatus(r.httpStatus);
  return new cls(options);
}

/**
 * 4014 means two things (packages/protocol codes.ts): "Bank down for maintenance" (HTTP 503, payout initiation
 * only: a retryable refusal) and "Payload could not be decrypted" (HTTP 400, any encrypted route: never cured by
 * retrying). The HTTP status tells them apart; the message decides when a proxy rewrote the status, and the route
 * when neither says: collections have no bank to be down.
 */
function bankDown(r: Refusal): boolean {
  if (r.family !== 'payout') return false;
  if (/bank down/i.test(r.message)) return true;
  if (/decrypt/i.test(r.message)) return false;
  return r.httpStatus === 503;
}

/** True for a refusal of the token itself, which a fresh token may cure. */
export function isTokenRefusal(family: ApiFamily, code: number | string | undefined): boolean {
  return (family === 'payout' && code === 4001) || (family === 'collection' && code === 4008);
}
