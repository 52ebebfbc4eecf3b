import { decryptJsonObject, encryptJson, type Scheme } from '@payrail/protocol';
import type { Clock } from '../../clock.ts';
import type { UpstreamSettings } from '../../connectorConfig.ts';

/** What the upstream answered on a merchant route: its code and message, and `data` decrypted when present. */
export interface UpstreamAnswer {
  httpStatus: number;
  code: number;
  message: string;
  data: Record<string, unknown> | null;
}

/**
 * The upstream could not be asked or did not answer in its envelope: a timeout, a connection error, a body that
 * is not the envelope. `uncertain` when the request may have reached it (only a refused connection did not).
 */
export class UpstreamUnreachable extends Error {
  constructor(
    message: string,
    readonly uncertain: boolean,
  ) {
    super(message);
    this.name = 'UpstreamUnreachable';
  }
}

/** An upstream answer's JSON object: its fields are checked where they are read. */
type Loose = Record<string, unknown>;

/** Renew a token this long before it expires, so that a request never carries one that lapses on the way. */
const TOKEN_MARGIN_MS = 30_000;
/** Longest answer body read from the upstream (its answers are small). */
const MAX_ANSWER_BYTES = 256 * 1024;

/**
 * Payrail as a merchant of an upstream provider that speaks the merchant interface: a token obtained once and
 * reused until 30 s before it expires (an upstream 4001 refreshes it, once per request), encrypted payloads and
 * answers in the configured scheme. Secrets never leave this object; errors name the route, never a payload.
 */
export class UpstreamClient {
  private token: { value: string; expiresAt: number } | null = null;
  private pendingToken: Promise<string> | null = null;

  constructor(
    private readonly settings: UpstreamSettings,
    private readonly clock: Clock,
  ) {}

  get scheme(): Scheme {
    return this.settings.scheme;
  }

  private get keys() {
    return { apiKey: this.settings.apiKey, secretKey: this.settings.secretKey };
  }

  /** Decrypts what the upstream encrypted with Payrail's credentials (answers and webhook `data`). */
  open(encoded: unknown): Record<string, unknown> {
    return decryptJsonObject(encoded, this.settings.scheme, this.keys);
  }

  /**
   * A merchant route with the bearer token; `plain` is encrypted into `{"payload"}`. `tokenRefused` is the route's
   * code for a token it does not take: 4001 on payout routes, 4008 on collection routes.
   */
  async call(
    method: 'GET' | 'POST',
    path: string,
    plain?: unknown,
    tokenRefused: 4001 | 4008 = 4001,
  ): Promise<UpstreamAnswer> {
    const first = await this.send(method, path, plain, await this.currentToken());
    if (first.code !== tokenRefused) return first;
    // The token was refused (expired early, credentials rotated upstream): one fresh token, one more try.
    this.token = null;
    return this.send(method, path, plain, await this.currentToken());
  }

  private currentToken(): Promise<string> {
    if (this.token && this.token.expiresAt - TOKEN_MARGIN_MS > this.clock()) return Promise.resolve(this.token.value);
    // One token request at a time: concurrent submissions share it.
    this.pendingToken ??= this.fetchToken().finally(() => {
      this.pendingToken = null;
    });
    return this.pendingToken;
  }

  private async fetchToken(): Promise<string> {
    const v2 = this.settings.scheme === 'v2';
    const body = v2 ? this.keys : { payload: encryptJson(this.keys, 'v1', this.keys) };
    const path = v2 ? '/v1/auth/client-token' : '/v1/auth/clients/token';
    const res = await this.request('POST', path, body, {});
    const json = res.json;
    if (res.status !== 200 || json?.respCode !== 2000) {
      const code = typeof json?.respCode === 'number' ? json.respCode : res.status;
      throw new UpstreamUnreachable(`the upstream refused Payrail's credentials (token: ${code})`, false);
    }
    let token: unknown;
    try {
      token = this.open(json.data).token;
    } catch {
      throw new UpstreamUnreachable('the upstream token answer does not decrypt with Payrail’s credentials', false);
    }
    if (typeof token !== 'string' || token.length === 0) {
      throw new UpstreamUnreachable('the upstream token answer carries no token', false);
    }
    const seconds = typeof json.expiresIn === 'number' && json.expiresIn > 0 ? json.expiresIn : 300;
    this.token = { value: token, expiresAt: this.clock() + seconds * 1000 };
    return token;
  }

  private async send(method: 'GET' | 'POST', path: string, plain: unknown, token: string): Promise<UpstreamAnswer> {
    const body = plain === undefined ? undefined : { payload: encryptJson(plain, this.settings.scheme, this.keys) };
    const res = await this.request(method, path, body, { authorization: `Bearer ${token}` });
    const json = res.json;
    const code = json?.resp_code ?? json?.respCode;
    if (typeof code !== 'number') {
      // A proxy's error page, an empty 502: the upstream's own answer is unknown.
      throw new UpstreamUnreachable(`${method} ${path}: HTTP ${res.status} without the upstream's envelope`, true);
    }
    const message = String(json?.resp_message ?? json?.respMessage ?? '');
    let data: Record<string, unknown> | null = null;
    if (json?.data !== undefined && json.data !== null && json.data !== '') {
      try {
        data = this.open(json.data);
      } catch {
        data = null;
      }
    }
    return { httpStatus: res.status, code, message, data };
  }

  private async request(
    method: string,
    path: string,
    body: unknown,
    headers: Record<string, string>,
  ): Promise<{ status: number; json: Loose | null }> {
    let res: Response;
    try {
      res = await fetch(`${this.settings.url}${path}`, {
        method,
        headers: {
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'error',
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      // Only a refused connection proves the request never arrived; a timeout or reset may have followed it.
      const refused = cause === 'ECONNREFUSED';
      const why = (err as Error).name === 'TimeoutError' ? `timed out after ${this.settings.timeoutMs} ms` : cause;
      throw new UpstreamUnreachable(`${method} ${path}: ${why ?? (err as Error).message}`, !refused);
    }
    const text = await readBounded(res);
    let json: Loose | null;
    try {
      const parsed: unknown = JSON.parse(text);
      json = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Loose) : null;
    } catch {
      json = null;
    }
    return { status: res.status, json };
  }
}

/** The answer's body, at most MAX_ANSWER_BYTES of it. */
async function readBounded(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel();
      break;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
