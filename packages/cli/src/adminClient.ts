import { isOperatorCode, OPERATOR_CODES, type OperatorStatus } from '@payrail/protocol';
import {
  AuthenticationError,
  ConflictError,
  NetworkError,
  NotFoundError,
  PayrailError,
  RateLimitError,
  ServerError,
  ValidationError,
  type PayrailErrorOptions,
} from '@payrail/sdk';

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/** A JSON object as the admin API answers it. */
export type Row = Record<string, unknown>;

/**
 * The operator API (docs/operator/admin-api.md): plain JSON with the admin bearer token. Its errors become the SDK's error
 * classes, so that the CLI reports and exits the same way for both APIs.
 */
export class AdminClient {
  constructor(
    readonly baseUrl: string,
    private readonly token: string,
    /** Where the token came from (`--admin-token`, `PAYRAIL_ADMIN_TOKEN`, a file): named when it is refused. */
    readonly tokenSource = 'the admin token',
    private readonly timeoutMs = 30_000,
  ) {}

  async request<T = Row>(
    method: string,
    path: string,
    body?: unknown,
    operation = `admin ${method} ${path}`,
    /**
     * A body that is not JSON (a statement file), and an answer kept as text (CSV) or as bytes (a PDF); errors are
     * JSON either way.
     */
    wire: { raw?: Uint8Array; contentType?: string; text?: boolean; bytes?: boolean } = {},
  ): Promise<T> {
    let res: Response;
    const contentType = wire.raw ? wire.contentType : body === undefined ? undefined : 'application/json';
    try {
      res = await fetch(this.baseUrl.replace(/\/+$/, '') + path, {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          accept: wire.text || wire.bytes ? '*/*' : 'application/json',
          ...(contentType === undefined ? {} : { 'content-type': contentType }),
        },
        // fetch's body types (DOM's, which the workspace's preact types bring in) want an ArrayBuffer-backed view.
        body:
          (wire.raw as Uint8Array<ArrayBuffer> | undefined) ?? (body === undefined ? undefined : JSON.stringify(body)),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      const e = err as { name?: string; message?: string; cause?: { code?: string } };
      throw new NetworkError({
        code: e.name === 'TimeoutError' ? 'TIMEOUT' : 'NETWORK_ERROR',
        // Method and path, without the query: the same shape as the SDK's network errors.
        message: `${method} ${this.baseUrl.replace(/\/+$/, '')}${path.split('?')[0]} did not answer: ${e.cause?.code ?? e.message ?? String(err)}`,
        operation,
        cause: err,
      });
    }
    if (res.ok && wire.bytes) return new Uint8Array(await res.arrayBuffer()) as T;
    const text = await res.text();
    if (res.ok && wire.text) return text as T;
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (res.ok) return parsed as T;
    const error = (parsed as { error?: { code?: string; message?: string } } | undefined)?.error;
    const refused = res.status === 401 || res.status === 403;
    const options: PayrailErrorOptions = {
      code: error?.code ?? `HTTP_${res.status}`,
      // A refused token says which one was used: a stale ./data/admin-token is easy to pick up by accident.
      message: refused
        ? `admin token from ${this.tokenSource} was refused by ${this.baseUrl}; ${refusedHint(this.tokenSource)}`
        : (error?.message ?? `HTTP ${res.status}`),
      operation,
      httpStatus: res.status,
    };
    throw adminErrorFor(res.status, options);
  }

  get<T = Row>(path: string, query: Record<string, string | number | undefined> = {}): Promise<T> {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, String(v));
    const qs = params.toString();
    return this.request<T>('GET', qs ? `${path}?${qs}` : path);
  }

  /** One page, or every page when `all` is set (following `next_cursor`). */
  async list(path: string, query: Record<string, string | number | undefined>, all: boolean): Promise<Page<Row>> {
    const first = await this.get<Page<Row>>(path, query);
    if (!all) return first;
    const data = [...first.data];
    let cursor = first.next_cursor;
    while (cursor) {
      const page = await this.get<Page<Row>>(path, { ...query, cursor });
      data.push(...page.data);
      cursor = page.has_more ? page.next_cursor : null;
    }
    return { data, has_more: false, next_cursor: null };
  }
}

/** What to do about a refused token, by where it came from (the order: flag, variable, file). */
function refusedHint(source: string): string {
  if (source === '--admin-token') {
    return 'check the value of --admin-token (it is used before PAYRAIL_ADMIN_TOKEN and the token file)';
  }
  if (source === 'PAYRAIL_ADMIN_TOKEN') {
    return (
      'set PAYRAIL_ADMIN_TOKEN to the token that server was started with, or pass --admin-token ' +
      '(the variable is used before the token file)'
    );
  }
  // The file is what a server started here without PAYRAIL_ADMIN_TOKEN generated: this server uses another token
  // (it was started with PAYRAIL_ADMIN_TOKEN, from another folder, or is another machine).
  return (
    `that file holds the token a server generated when started from this folder without PAYRAIL_ADMIN_TOKEN; ` +
    `this server uses another one: pass --admin-token or set PAYRAIL_ADMIN_TOKEN to its token`
  );
}

/**
 * The SDK error class, hence the exit code (exitCodes.ts), of each HTTP status protocol's OPERATOR_CODES gives a code:
 * 401/403 a refused token (3), 404 not found (5), 429 and 5xx unavailable (6), the other refusals 4. A status the table
 * gains does not compile here until it has its class.
 */
const OPERATOR_ERRORS: Record<OperatorStatus, new (options: PayrailErrorOptions) => PayrailError> = {
  400: ValidationError,
  401: AuthenticationError,
  403: AuthenticationError,
  404: NotFoundError,
  409: ConflictError,
  413: ValidationError,
  414: ValidationError,
  415: ValidationError,
  422: ValidationError,
  429: RateLimitError,
  500: ServerError,
  503: ServerError,
};

/** The error of an admin API refusal: by its operator code's status in the table, else by the HTTP status. */
export function adminErrorFor(status: number, options: PayrailErrorOptions): PayrailError {
  if (isOperatorCode(options.code)) return new OPERATOR_ERRORS[OPERATOR_CODES[options.code].http](options);
  // No code of the table (a proxy's 502, an answer that is not JSON): by the status alone.
  if (status === 401 || status === 403) return new AuthenticationError(options);
  if (status === 404) return new NotFoundError(options);
  if (status === 409) return new ConflictError(options);
  if (status === 429) return new RateLimitError(options);
  if (status >= 500) return new ServerError(options);
  return new ValidationError(options);
}
