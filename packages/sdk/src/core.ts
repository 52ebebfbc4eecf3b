import { DecryptError, decryptJsonObject, encryptJson, type KeyMaterial, type Scheme } from '@payrail/protocol';
import { abortReason, backoffDelay, RequestBudget, retryAfterMs, sleep } from './backoff.ts';
import { isTokenRefusal, toError, type ApiFamily } from './classify.ts';
import {
  ConfigurationError,
  NetworkError,
  PayrailError,
  RateLimitError,
  ServerError,
  type Operation,
} from './errors.ts';
import type { PayrailOptions, TokenInfo } from './types.ts';
import { systemNow } from './clock.ts';

export const SDK_VERSION = '0.1.0';

/**
 * How a request may be repeated. `read`: on network errors, 5xx and 429. `initiate`: on network errors and 5xx
 * other than "bank down", with the same body (so the same senderId): the server answers a repeat of a request
 * that did land with "duplicate" and the existing transaction, never with a second one. `none`: never.
 */
export type RetryMode = 'read' | 'initiate' | 'none';

/** The status endpoints the server rate-limits, each with its own budget in the client. */
export type StatusBudget = 'payout-status' | 'collection-status' | 'settlement-status';

export interface RequestSpec {
  operation: Operation;
  family: ApiFamily;
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string>;
  /** Plaintext to send encrypted as `{"payload": …}`. */
  encrypted?: unknown;
  /** Plain JSON body. */
  json?: unknown;
  headers?: Record<string, string>;
  auth: boolean;
  retry: RetryMode;
  /** Counts against the client's status-endpoint budget under this name. */
  budget?: StatusBudget;
  signal?: AbortSignal;
}

/** A settled request: either the decrypted data of a 2000 answer, or the server's refusal as an error. */
export type Outcome =
  | { ok: true; data: Record<string, unknown> | undefined; raw: Record<string, unknown>; status: number }
  | {
      ok: false;
      error: PayrailError;
      /** Decrypted `data` that came with the refusal (4009 carries the existing payout). */
      data: Record<string, unknown> | undefined;
      /** True when an earlier attempt of this call may have been carried out by the server (lost answer, 5xx). */
      ambiguous: boolean;
    };

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown> | undefined;
}

/**
 * `fetch failed: ECONNREFUSED` alone does not say which server was called: the message names the method and the
 * URL, without its query (status lookups carry references there).
 */
function describeNetworkFailure(err: unknown, target: string, timeoutMs: number): { code: string; message: string } {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') {
    return { code: 'TIMEOUT', message: `${target}: no answer within ${timeoutMs} ms (timeoutMs)` };
  }
  const cause = e.cause?.code ?? e.cause?.message;
  const what = cause ? `${e.message ?? 'fetch failed'}: ${cause}` : String(e.message);
  return { code: 'NETWORK_ERROR', message: `${target}: ${what}` };
}

/** Transport, token and crypto shared by every resource of one `Payrail` client. */
export class Core {
  readonly baseUrl: string;
  readonly scheme: Scheme;
  readonly keys: KeyMaterial;
  readonly webhookSecret: string | undefined;
  private readonly fetchImpl: typeof fetch;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly maxRetryAfterMs: number;
  private readonly renewBeforeMs: number;
  private readonly userAgent: string;
  private readonly budgets: Record<StatusBudget, RequestBudget>;
  private current: (TokenInfo & { renewAt: number }) | undefined;
  private inflight: Promise<TokenInfo> | undefined;
  /** The client's clock (PayrailOptions.now). */
  private readonly now: () => number;

  constructor(options: PayrailOptions) {
    const config = (message: string) => new ConfigurationError({ code: 'CONFIG', message, operation: 'config' });
    if (!options || typeof options !== 'object') throw config('new Payrail(options) needs an options object');
    let url: URL;
    try {
      url = new URL(options.baseUrl);
    } catch {
      throw config(`baseUrl must be an absolute http(s) URL, got ${JSON.stringify(options.baseUrl)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw config('baseUrl must be http or https');
    // fetch refuses such a URL on every call, with the password in its message: refuse it once, here, without it.
    if (url.username || url.password) throw config('baseUrl must not contain a user name or password');
    if (!options.apiKey || !options.secretKey) throw config('apiKey and secretKey are required');
    const scheme = options.scheme ?? 'v2';
    if (scheme !== 'v1' && scheme !== 'v2') throw config(`scheme must be 'v1' or 'v2'`);
    this.baseUrl = url.href.replace(/\/+$/, '');
    this.scheme = scheme;
    this.keys = { apiKey: options.apiKey, secretKey: options.secretKey };
    this.webhookSecret = options.webhookSecret;
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retries = Math.max(0, options.retry?.retries ?? 3);
    this.baseDelayMs = options.retry?.baseDelayMs ?? 250;
    this.maxDelayMs = options.retry?.maxDelayMs ?? 5_000;
    this.maxRetryAfterMs = options.retry?.maxRetryAfterMs ?? 60_000;
    this.renewBeforeMs = options.tokenRenewBeforeMs ?? 30_000;
    this.userAgent = `payrail-sdk-node/${SDK_VERSION}${options.userAgent ? ` ${options.userAgent}` : ''}`;
    this.now = options.now ?? systemNow;
    const perMinute = options.statusRequestsPerMinute ?? 200;
    this.budgets = {
      'payout-status': new RequestBudget(perMinute, 60_000, this.now),
      'collection-status': new RequestBudget(perMinute, 60_000, this.now),
      'settlement-status': new RequestBudget(perMinute, 60_000, this.now),
    };
  }

  encrypt(value: unknown): string {
    return encryptJson(value, this.scheme, this.keys);
  }

  // ---- tokens ----------------------------------------------------------------------------------------------

  /**
   * A valid token: the cached one, or one fetched now. Concurrent callers share a single token request; a token
   * is renewed `renewBeforeMs` (at most a fifth of its lifetime) before it expires.
   */
  async token(): Promise<TokenInfo> {
    const current = this.current;
    if (current && this.now() < current.renewAt) {
      return { token: current.token, scheme: current.scheme, expiresAt: current.expiresAt };
    }
    this.inflight ??= this.fetchToken().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  /** Forgets `token` after the server refused it, so that the next call fetches another. */
  invalidate(token: string): void {
    if (this.current?.token === token) this.current = undefined;
  }

  private async fetchToken(): Promise<TokenInfo> {
    const startedAt = this.now();
    const spec: RequestSpec =
      this.scheme === 'v2'
        ? {
            operation: 'token',
            family: 'token',
            method: 'POST',
            path: '/v1/auth/client-token',
            json: { apiKey: this.keys.apiKey, secretKey: this.keys.secretKey },
            auth: false,
            retry: 'read',
          }
        : {
            operation: 'token',
            family: 'token',
            method: 'POST',
            path: '/v1/auth/clients/token',
            encrypted: { apiKey: this.keys.apiKey, secretKey: this.keys.secretKey },
            headers: { 'x-api-key': this.keys.apiKey },
            auth: false,
            retry: 'read',
          };
    const outcome = await this.request(spec);
    if (!outcome.ok) throw outcome.error;
    const token = outcome.data?.token;
    const expiresIn = Number(outcome.raw.expiresIn ?? 300);
    if (typeof token !== 'string' || !token) {
      throw new ServerError({
        code: 'BAD_RESPONSE',
        message: 'The token answer holds no token',
        operation: 'token',
        httpStatus: outcome.status,
      });
    }
    const lifetimeMs = (Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : 300) * 1000;
    const expiresAt = startedAt + lifetimeMs;
    const margin = Math.min(this.renewBeforeMs, lifetimeMs / 5);
    const info = { token, scheme: this.scheme, expiresAt: new Date(expiresAt), renewAt: expiresAt - margin };
    this.current = info;
    return { token, scheme: this.scheme, expiresAt: info.expiresAt };
  }

  // ---- requests --------------------------------------------------------------------------------------------

  /**
   * Sends a request with the retry policy of its mode and renews the token once when the server refuses it.
   * Resolves with the outcome; rejects only with errors that have no answer to show (network, timeout, abort).
   */
  async request(spec: RequestSpec): Promise<Outcome> {
    let retry = 0;
    let renewed = false;
    let ambiguous = false;
    for (;;) {
      if (spec.signal?.aborted) throw this.aborted(spec);
      let token: string | undefined;
      if (spec.auth) token = (await this.token()).token;
      if (spec.budget) await this.budgets[spec.budget].acquire(spec.signal);

      let answer: Answer;
      try {
        answer = await this.send(spec, token);
      } catch (err) {
        if (spec.signal?.aborted) throw this.aborted(spec, err);
        if (err instanceof PayrailError) throw err;
        const { code, message } = describeNetworkFailure(err, this.target(spec), this.timeoutMs);
        const error = new NetworkError({ code, message, operation: spec.operation, cause: err });
        // The request may have reached the server and been carried out; only the answer is missing.
        ambiguous = true;
        if (spec.retry !== 'none' && retry < this.retries) {
          await sleep(backoffDelay(retry++, this.baseDelayMs, this.maxDelayMs), spec.signal);
          continue;
        }
        throw error;
      }

      const body = answer.body;
      const code = body ? (body.resp_code ?? body.respCode) : undefined;
      const message = body ? (body.resp_message ?? body.respMessage) : undefined;
      const adminError = body?.error as { code?: unknown; message?: unknown } | undefined;
      let data: Record<string, unknown> | undefined;
      if (typeof body?.data === 'string' && body.data !== '') {
        try {
          data = decryptJsonObject(body.data, this.scheme, this.keys);
        } catch (err) {
          if (!(err instanceof DecryptError)) throw err;
          // A refusal stays a refusal even when its extra data cannot be read; a success must be readable.
          if (code === 2000) {
            throw new ServerError({
              code: 'BAD_RESPONSE',
              message: `The answer's data could not be decrypted with this client's ${this.scheme} keys (${err.reason})`,
              operation: spec.operation,
              httpStatus: answer.status,
              requestId: answer.headers.get('x-request-id') ?? undefined,
            });
          }
        }
      }
      if (code === 2000 && answer.status < 300) return { ok: true, data, raw: body ?? {}, status: answer.status };
      if (answer.status < 300 && code === undefined) {
        throw new ServerError({
          code: 'BAD_RESPONSE',
          message: `Unexpected answer (HTTP ${answer.status}) without a response code`,
          operation: spec.operation,
          httpStatus: answer.status,
        });
      }

      const numericOrText =
        typeof code === 'number' ? code : typeof adminError?.code === 'string' ? adminError.code : undefined;
      if (token !== undefined && !renewed && isTokenRefusal(spec.family, numericOrText)) {
        // The token expired early, was revoked, or the server restarted with a new signing key: renew it once.
        renewed = true;
        this.invalidate(token);
        continue;
      }

      const wait = retryAfterMs(answer.headers, this.now());
      const error = toError({
        family: spec.family,
        operation: spec.operation,
        httpStatus: answer.status,
        code: numericOrText,
        message:
          typeof message === 'string' ? message : typeof adminError?.message === 'string' ? adminError.message : '',
        retryAfterMs: answer.status === 429 ? wait : undefined,
        requestId: answer.headers.get('x-request-id') ?? undefined,
        existing: data,
      });

      if (error instanceof RateLimitError) {
        if (spec.budget && wait !== undefined) this.budgets[spec.budget].pause(wait);
        // A 429 means the request was not carried out, so any request may wait and try again.
        if (spec.retry !== 'none' && retry < this.retries && wait !== undefined && wait <= this.maxRetryAfterMs) {
          retry++;
          await sleep(wait + Math.round(Math.random() * 100), spec.signal);
          continue;
        }
      } else if (error instanceof ServerError) {
        ambiguous = true;
        if (spec.retry !== 'none' && retry < this.retries) {
          await sleep(Math.max(wait ?? 0, backoffDelay(retry++, this.baseDelayMs, this.maxDelayMs)), spec.signal);
          continue;
        }
      } else if (error.retryable && spec.retry === 'read' && retry < this.retries) {
        // Bank down on a read cannot happen; kept for completeness of the read policy.
        await sleep(backoffDelay(retry++, this.baseDelayMs, this.maxDelayMs), spec.signal);
        continue;
      }
      return { ok: false, error, data, ambiguous };
    }
  }

  /** `POST https://host/base/path`: the request as an error message names it (no query). */
  private target(spec: RequestSpec): string {
    const url = new URL(this.baseUrl + spec.path);
    return `${spec.method} ${url.origin}${url.pathname}`;
  }

  private aborted(spec: RequestSpec, cause?: unknown): NetworkError {
    return new NetworkError({
      code: 'ABORTED',
      message: 'The call was aborted',
      operation: spec.operation,
      cause: cause ?? (spec.signal ? abortReason(spec.signal) : undefined),
    });
  }

  private async send(spec: RequestSpec, token: string | undefined): Promise<Answer> {
    const url = new URL(this.baseUrl + spec.path);
    for (const [key, value] of Object.entries(spec.query ?? {})) url.searchParams.set(key, value);
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.userAgent,
      ...spec.headers,
    };
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (spec.encrypted !== undefined) body = JSON.stringify({ payload: this.encrypt(spec.encrypted) });
    else if (spec.json !== undefined) body = JSON.stringify(spec.json);
    if (body !== undefined) headers['content-type'] = 'application/json';
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = spec.signal ? AbortSignal.any([spec.signal, timeout]) : timeout;
    const res = await this.fetchImpl(url, { method: spec.method, headers, body, signal });
    const text = await res.text();
    let parsed: Record<string, unknown> | undefined;
    if (text) {
      try {
        const value = JSON.parse(text) as unknown;
        if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
          parsed = value as Record<string, unknown>;
        }
      } catch {
        parsed = undefined;
      }
    }
    return { status: res.status, headers: res.headers, body: parsed };
  }
}
