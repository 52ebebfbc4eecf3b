/**
 * Every failure the SDK reports is a `PayrailError` subclass, one class per family, so that callers can
 * `catch` by class and still see the server's own `code`, the HTTP status and the operation that failed.
 *
 * `code` is the numeric code of the merchant API envelope (for example 4002) when the server answered with one;
 * otherwise a short text code: `NETWORK_ERROR`, `TIMEOUT`, `HTTP_502`, `BAD_RESPONSE`, `WEBHOOK_SIGNATURE`, …
 */

/** The SDK operations, as they appear in `PayrailError.operation`. */
export type Operation =
  | 'token'
  | 'payouts.initiate'
  | 'payouts.get'
  | 'payouts.waitFor'
  | 'wallets.balance'
  | 'collections.initiate'
  | 'collections.get'
  | 'collections.waitFor'
  | 'sandbox.simulateCollection'
  | 'payouts.bulk'
  | 'payouts.bulkStatus'
  | 'beneficiaries.verify'
  | 'settlements.initiate'
  | 'settlements.status'
  | 'settlements.waitFor'
  | 'settlements.history'
  | 'webhooks.verify'
  | 'config'
  | (string & {});

export interface PayrailErrorOptions {
  code: number | string;
  message: string;
  operation: Operation;
  httpStatus?: number;
  /** The request identifier the server answered with, when it sent one. */
  requestId?: string;
  cause?: unknown;
}

export class PayrailError extends Error {
  /** The envelope code (e.g. 4002), or a text code for failures without one (e.g. `NETWORK_ERROR`). */
  readonly code: number | string;
  /** HTTP status of the answer; undefined when there was no answer. */
  readonly httpStatus: number | undefined;
  /** The SDK operation that failed, e.g. `payouts.initiate`. */
  readonly operation: Operation;
  readonly requestId: string | undefined;
  /** True when the same call may succeed if made again later (rate limit, bank down, server or network). */
  readonly retryable: boolean = false;

  constructor(options: PayrailErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    this.httpStatus = options.httpStatus;
    this.operation = options.operation;
    this.requestId = options.requestId;
  }

  /** A plain object for logs and `--json` output (no stack, no credentials). */
  toJSON(): Record<string, unknown> {
    return {
      type: this.name,
      code: this.code,
      message: this.message,
      httpStatus: this.httpStatus ?? null,
      operation: this.operation,
      retryable: this.retryable,
    };
  }
}

/** Credentials refused (4001 on tokens, payouts and settlements, 4008 on collections), or a token that stays refused. */
export class AuthenticationError extends PayrailError {}

/** The request is malformed or a field is invalid (4000, 4003–4008, 4012, 4014 undecryptable, 4016, 4017, 41xx, 4201). */
export class ValidationError extends PayrailError {}

/**
 * The server could not decrypt or read the request's payload (4014 with HTTP 400, "Payload could not be
 * decrypted"): the payload was not sealed with this merchant's secret key under the token's scheme, or a proxy
 * altered the body. Sending it again cannot help; check `secretKey` and `scheme`. On payout initiation the same
 * code 4014 with HTTP 503 means the bank is down: that one is a `BankUnavailableError`. A subclass of
 * `ValidationError`, as 4014 (undecryptable) always was, so existing `catch` branches still see it.
 */
export class DecryptionError extends ValidationError {}

/** The wallet balance does not cover the payout (4002). */
export class InsufficientFundsError extends PayrailError {}

/** The merchant's daily (4010) or monthly (4011) payout allowance would be exceeded. */
export class LimitExceededError extends PayrailError {
  get period(): 'daily' | 'monthly' | undefined {
    return this.code === 4010 ? 'daily' : this.code === 4011 ? 'monthly' : undefined;
  }
}

/** Too many requests (4290, HTTP 429); `retryAfterMs` is the server's `Retry-After` when it sent one. */
export class RateLimitError extends PayrailError {
  override readonly retryable = true;
  readonly retryAfterMs: number | undefined;

  constructor(options: PayrailErrorOptions & { retryAfterMs?: number }) {
    super(options);
    this.retryAfterMs = options.retryAfterMs;
  }

  override toJSON() {
    return { ...super.toJSON(), retryAfterMs: this.retryAfterMs ?? null };
  }
}

/**
 * The transaction or wallet does not exist for this merchant (4103 on payouts and settlements, 4104, 4107, 4202).
 * 4107 is another merchant's transaction (a collection or a settlement): the SDK does not tell it from one that does
 * not exist, and `code` says which.
 */
export class NotFoundError extends PayrailError {}

/**
 * The `senderId` was used before (4009 payouts, 4112 collections). `existing` is the transaction that holds it
 * when the server sent it. `matchesRequest` is true when that transaction has this request's wallet, mode, amount
 * and beneficiary, i.e. it is the one asked for (made by an earlier run): `{ onDuplicate: 'return' }` returns it
 * instead of throwing. False when the reference holds a different transaction; undefined when unknown.
 */
export class ConflictError<T = unknown> extends PayrailError {
  readonly existing: T | undefined;
  readonly matchesRequest: boolean | undefined;

  constructor(options: PayrailErrorOptions & { existing?: T; matchesRequest?: boolean }) {
    super(options);
    this.existing = options.existing;
    this.matchesRequest = options.matchesRequest;
  }

  override toJSON() {
    const json = super.toJSON();
    return this.matchesRequest === undefined ? json : { ...json, matchesRequest: this.matchesRequest };
  }
}

/** The beneficiary's bank is down for maintenance (4014 at initiation, HTTP 503): try again later. */
export class BankUnavailableError extends PayrailError {
  override readonly retryable = true;
}

/** The bank side refused this beneficiary: verification failed (4013) or transfers to the bank are not allowed (4015). */
export class BankRejectedError extends PayrailError {}

/**
 * 4015 "Commercials are not yet configured and activated": the operator requires a pricing plan and your merchant has
 * none yet. Nothing was recorded; ask the operator to set your plan, then send the request again.
 */
export class CommercialsMissingError extends PayrailError {}

/**
 * 4016 on settlements, "No active settlement account found": the operator has not registered your settlement account
 * yet, or changed it less than 24 hours ago (a changed account holds settlements for a day). Nothing was recorded.
 */
export class NoSettlementAccountError extends PayrailError {}

/**
 * 4002 on settlements: nothing to settle. No collection credited to the wallet is left unsettled within its
 * available balance (balance minus liens and the reserve), or less than the `amount` asked for. Nothing was recorded.
 */
export class NothingToSettleError extends PayrailError {}

/**
 * An atomic batch was refused because at least one item failed (4018): nothing was recorded. `result` holds
 * every item's verdict.
 */
export class BatchRejectedError<T = unknown> extends PayrailError {
  readonly result: T | undefined;

  constructor(options: PayrailErrorOptions & { result?: T }) {
    super(options);
    this.result = options.result;
  }
}

/** The server failed (5000, any 5xx) or answered something the SDK cannot read. */
export class ServerError extends PayrailError {
  override readonly retryable = true;
}

/** No answer: connection refused or reset, DNS failure, or no answer within `timeoutMs`. */
export class NetworkError extends PayrailError {
  override readonly retryable = true;
}

export type WebhookFailure = 'missing_headers' | 'signature' | 'stale' | 'malformed' | 'undecryptable';

/** A webhook delivery that must not be trusted: bad or missing signature, too old, or unreadable. */
export class WebhookVerificationError extends PayrailError {
  readonly reason: WebhookFailure;

  constructor(reason: WebhookFailure, message: string) {
    super({ code: `WEBHOOK_${reason.toUpperCase()}`, message, operation: 'webhooks.verify' });
    this.reason = reason;
  }
}

/** `waitFor` gave up before the transaction reached the awaited status; `last` is what it saw last. */
export class WaitTimeoutError<T = unknown> extends PayrailError {
  override readonly retryable = true;
  readonly last: T | undefined;

  constructor(options: PayrailErrorOptions & { last?: T }) {
    super(options);
    this.last = options.last;
  }
}

/** The client was constructed or called with settings it cannot work with (for example no webhook secret). */
export class ConfigurationError extends PayrailError {}
