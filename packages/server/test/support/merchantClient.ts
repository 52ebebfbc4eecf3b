import { decryptJsonObject, encryptJson, type Scheme } from '@payrail/protocol';
import { TEST_ADMIN_TOKEN } from './testServer.ts';

export interface HttpResult {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

export async function http(
  url: string,
  method: string,
  path: string,
  init: { body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | undefined = init.rawBody;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(url + path, { method, headers, body });
  const text = await res.text();
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    parsed = { raw: text };
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

export function admin(url: string, method: string, path: string, body?: unknown) {
  return http(url, method, path, { body, headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
}

export interface TestMerchant {
  merchant_id: string;
  api_key: string;
  secret_key: string;
  webhook_secret: string;
  wallet_id: string;
}

export async function createMerchant(url: string, name = 'Test Merchant', credit?: string): Promise<TestMerchant> {
  const res = await admin(url, 'POST', '/admin/v1/merchants', { name });
  if (res.status !== 201) throw new Error(`merchant create failed: ${res.status} ${JSON.stringify(res.body)}`);
  const m = res.body as unknown as TestMerchant;
  if (credit) await admin(url, 'POST', `/admin/v1/wallets/${m.wallet_id}/credits`, { amount: credit });
  return m;
}

const keysOf = (m: TestMerchant) => ({ apiKey: m.api_key, secretKey: m.secret_key });

/** Merchant-side test client: obtains a token with the scheme and speaks encrypted envelopes. */
export class MerchantClient {
  token = '';

  constructor(
    readonly url: string,
    readonly merchant: TestMerchant,
    readonly scheme: Scheme,
  ) {}

  static async connect(url: string, merchant: TestMerchant, scheme: Scheme): Promise<MerchantClient> {
    const client = new MerchantClient(url, merchant, scheme);
    await client.login();
    return client;
  }

  async login(): Promise<void> {
    const res =
      this.scheme === 'v2'
        ? await http(this.url, 'POST', '/v1/auth/client-token', {
            body: { apiKey: this.merchant.api_key, secretKey: this.merchant.secret_key },
          })
        : await http(this.url, 'POST', '/v1/auth/clients/token', {
            body: { payload: encryptJson(keysOf(this.merchant), 'v1', keysOf(this.merchant)) },
            headers: { 'x-api-key': this.merchant.api_key },
          });
    if (res.body.respCode !== 2000) throw new Error(`token failed: ${JSON.stringify(res.body)}`);
    this.token = (this.decrypt(res.body.data) as { token: string }).token;
  }

  encrypt(value: unknown): string {
    return encryptJson(value, this.scheme, keysOf(this.merchant));
  }

  decrypt(data: unknown): Record<string, unknown> {
    return decryptJsonObject(data, this.scheme, keysOf(this.merchant));
  }

  auth(): Record<string, string> {
    return { authorization: `Bearer ${this.token}` };
  }

  /** POST with `{"payload": encrypt(plain)}`; returns the response with `data` decrypted when present. */
  async post(path: string, plain: unknown) {
    const res = await http(this.url, 'POST', path, { body: { payload: this.encrypt(plain) }, headers: this.auth() });
    return { ...res, data: typeof res.body.data === 'string' ? this.decrypt(res.body.data) : undefined };
  }

  async get(path: string) {
    const res = await http(this.url, 'GET', path, { headers: this.auth() });
    return { ...res, data: typeof res.body.data === 'string' ? this.decrypt(res.body.data) : undefined };
  }
}
