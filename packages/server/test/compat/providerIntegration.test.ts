import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { request } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../support/testServer.ts';
import { startTlsProxy, type TlsProxy } from '../support/tlsProxy.ts';
import { eventually, WebhookReceiver } from '../support/webhookReceiver.ts';

/*
 * A payout integration written against the provider's live service, used unchanged: it is configured with a base
 * URL that ends in `/api/` (over HTTPS, as in production), asks for its token on the V1 path with the credentials in
 * plain JSON (`api_key`, `secret_key`), initiates, reads the status by `sender_id`, and verifies webhooks by the
 * `X-Paywize-Signature` header. Only node:crypto and node:https on the client side, nothing of ours.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

/** The integration's client: every path is relative to its base URL, as the provider's samples join them. */
class ProviderClient {
  private token = '';
  private scheme: 'v1' | 'v2' = 'v2';

  constructor(
    private readonly baseUrl: string,
    private readonly ca: string,
    private readonly keys: { apiKey: string; secretKey: string },
  ) {}

  send(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: Loose }> {
    const url = new URL(path, this.baseUrl);
    const text = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        {
          method,
          ca: this.ca,
          headers: {
            accept: 'application/json',
            ...(text === undefined ? {} : { 'content-type': 'application/json' }),
            ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            try {
              resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
            } catch (err) {
              reject(err as Error);
            }
          });
        },
      );
      req.on('error', reject);
      req.end(text);
    });
  }

  /** The live service's token call: plain credentials on the V1 path; `scheme` is what the account is set to. */
  async authenticate(scheme: 'v1' | 'v2'): Promise<Loose> {
    this.scheme = scheme;
    const res = await this.send('POST', 'v1/auth/clients/token', {
      api_key: this.keys.apiKey,
      secret_key: this.keys.secretKey,
    });
    if (res.json.respCode === 2000) this.token = String(this.decrypt(res.json.data).token);
    return res;
  }

  encrypt(plain: unknown): string {
    const text = JSON.stringify(plain);
    if (this.scheme === 'v1') {
      const cipher = createCipheriv('aes-256-cbc', Buffer.from(this.keys.apiKey), Buffer.from(this.keys.secretKey));
      return Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]).toString('base64');
    }
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', createHash('sha256').update(this.keys.secretKey).digest(), nonce);
    const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return Buffer.concat([nonce, sealed, cipher.getAuthTag()]).toString('base64');
  }

  decrypt(data: unknown): Loose {
    const raw = Buffer.from(String(data), 'base64');
    if (this.scheme === 'v1') {
      const decipher = createDecipheriv('aes-256-cbc', Buffer.from(this.keys.apiKey), Buffer.from(this.keys.secretKey));
      return JSON.parse(Buffer.concat([decipher.update(raw), decipher.final()]).toString('utf8'));
    }
    const key = createHash('sha256').update(this.keys.secretKey).digest();
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    return JSON.parse(Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString());
  }
}

/** The provider's documented check: `X-Paywize-Signature: sha256=<hex HMAC-SHA256(webhook secret, raw body)>`. */
function paywizeSignatureValid(header: unknown, body: string, webhookSecret: string): boolean {
  if (typeof header !== 'string') return false;
  const expected = Buffer.from(`sha256=${createHmac('sha256', webhookSecret).update(body).digest('hex')}`);
  return header.split(',').some((part) => {
    const given = Buffer.from(part.trim());
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

describe.each(ENGINES)('a provider integration through https://host/api/ (%s)', (engine) => {
  let t: TestServer;
  let proxy: TlsProxy;
  let receiver: WebhookReceiver;
  let merchant: { merchant_id: string; api_key: string; secret_key: string; webhook_secret: string; wallet_id: string };
  let client: ProviderClient;
  const admin = (method: string, path: string, body?: unknown) =>
    fetch(`${t.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(async (res) => ({ status: res.status, json: (await res.json()) as Loose }));

  beforeAll(async () => {
    proxy = await startTlsProxy();
    t = await startTestServer(engine, { env: { PAYRAIL_PUBLIC_URL: proxy.url } });
    proxy.target = t.url;
    receiver = await new WebhookReceiver().start();
    merchant = (await admin('POST', '/admin/v1/merchants', { name: 'Live Integration Ltd' })).json;
    expect((await admin('POST', `/admin/v1/wallets/${merchant.wallet_id}/credits`, { amount: '9000.00' })).status).toBe(
      200,
    );
    client = new ProviderClient(`${proxy.url}/api/`, proxy.ca, {
      apiKey: merchant.api_key,
      secretKey: merchant.secret_key,
    });
  });

  afterAll(async () => {
    await receiver?.stop();
    await t?.close();
    await proxy?.stop();
  });

  const payout = (senderId: string, account: string, ifsc: string) =>
    client.send('POST', 'payout/v1/initiate', {
      payload: client.encrypt({
        sender_id: senderId,
        wallet_id: merchant.wallet_id,
        payment_mode: 'IMPS',
        amount: '310.25',
        beneficiary: { beneficiary_name: 'Test Beneficiary', beneficiary_acc_number: account, beneficiary_ifsc: ifsc },
        remarks: 'provider integration',
        callback_url: `${receiver.url}/hooks`,
      }),
    });

  const finalStatus = (senderId: string) =>
    eventually(async () => {
      const res = await client.send('GET', `payout/v1/status?sender_id=${senderId}`);
      const p = res.json.resp_code === 2000 ? client.decrypt(res.json.data) : null;
      return p && ['SUCCESS', 'REFUNDED'].includes(p.status) ? p : null;
    });

  it('takes a payout to SUCCESS with a plain-credential token (default scheme V2) and X-Paywize-Signature', async () => {
    const token = await client.authenticate('v2');
    expect(token.status).toBe(200);
    expect(token.json).toMatchObject({ respCode: 2000, tokenType: 'Bearer' });

    const res = await payout('live-int-1', '1234567890', 'TEST0001234');
    expect(res.json.resp_code).toBe(2000);
    expect(client.decrypt(res.json.data)).toMatchObject({ sender_id: 'live-int-1', status: 'INITIATED' });

    const done: Loose = await finalStatus('live-int-1');
    expect(done).toMatchObject({ status: 'SUCCESS', amount: '310.25' });
    expect(done.utr_number).toMatch(/\S/);

    const hook: Loose = await eventually(() => receiver.at('/hooks').find((h) => h.body.includes('payout.success')));
    const signature = hook.headers['x-paywize-signature'];
    expect(signature).toBe(hook.headers['x-signature']);
    expect(paywizeSignatureValid(signature, hook.body, merchant.webhook_secret)).toBe(true);
    expect(
      paywizeSignatureValid(signature, hook.body.replace('payout.success', 'payout.failed'), merchant.webhook_secret),
    ).toBe(false);
    expect(client.decrypt(JSON.parse(hook.body).data)).toMatchObject({ sender_id: 'live-int-1', status: 'SUCCESS' });
  });

  it("fails the provider's documented failing test account, and refunds it", async () => {
    const res = await payout('live-int-2', '9876543210', 'TEST0001234');
    expect(res.json.resp_code).toBe(2000);
    expect(await finalStatus('live-int-2')).toMatchObject({ status: 'REFUNDED' });
  });

  it("encrypts the plain-credential token with the merchant's default_scheme once it is v1", async () => {
    const patched = await admin('PATCH', `/admin/v1/merchants/${merchant.merchant_id}`, { default_scheme: 'v1' });
    expect(patched.status).toBe(200);
    expect(patched.json.default_scheme).toBe('v1');
    expect((await client.authenticate('v1')).json.respCode).toBe(2000);
    const res = await payout('live-int-3', '1234567890', 'TEST0001234');
    expect(res.json.resp_code).toBe(2000);
    expect(await finalStatus('live-int-3')).toMatchObject({ status: 'SUCCESS' });
  });

  it('keeps admin routes off the /api prefix', async () => {
    const res = await fetch(`${t.url}/api/admin/v1/merchants`, {
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    expect(res.status).toBe(404);
  });
});
