import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { createServer } from 'node:net';
import { readFileSync } from 'node:fs';
import { verifyBodySignature } from '@payrail/protocol';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, http } from '../support/merchantClient.ts';
import { fundedMerchant, initiateOk, payoutRequest, SANDBOX, type Funded } from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../support/testServer.ts';
import { eventually, WebhookReceiver, type ReceivedWebhook } from '../support/webhookReceiver.ts';

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
const DAY_MS = 24 * 60 * 60 * 1000;

const hexHmac = (secret: string, body: string) =>
  createHmac('sha256', Buffer.from(secret, 'utf8')).update(body, 'utf8').digest('hex');

const standardHeaders = (h: ReceivedWebhook) => ({
  'webhook-id': h.headers['webhook-id'] as string,
  'webhook-timestamp': h.headers['webhook-timestamp'] as string,
  'webhook-signature': h.headers['webhook-signature'] as string,
});

const verifiesStandard = (secret: string, h: ReceivedWebhook) => {
  try {
    new Webhook(secret).verify(h.body, standardHeaders(h));
    return true;
  } catch {
    return false;
  }
};

// docs/merchant/webhooks.md (X-Signature, User-Agent, compact body, rotating the webhook secret).
describe.each(ENGINES)('webhook signatures and secret rotation on %s', (engine) => {
  let t: TestServer;
  let receiver: WebhookReceiver;
  let n = 0;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await startTestServer(engine, { env: { PAYRAIL_PUBLIC_URL: 'https://pay.example.test' } });
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });

  /** Sends a payout to the success account and returns its two deliveries (processing, success). */
  async function deliveriesOfOnePayout(f: Funded): Promise<ReceivedWebhook[]> {
    const path = `/sig/${n++}`;
    await initiateOk(
      f.client,
      payoutRequest('nested', {
        wallet_id: f.merchant.wallet_id,
        beneficiary_ifsc: SANDBOX.ifsc,
        beneficiary_acc_number: SANDBOX.success,
        callback_url: receiver.url + path,
      }),
    );
    await eventually(() => receiver.at(path).length >= 2);
    return receiver.at(path);
  }

  async function rotate(merchantId: string) {
    // An empty body with Content-Type: application/json, as docs/operator/admin-api.md allows.
    return http(t.url, 'POST', `/admin/v1/merchants/${merchantId}/webhook-secret/rotate`, {
      rawBody: '',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    });
  }

  it('every delivery carries X-Signature over the exact compact body and User-Agent Payrail-Webhook/<version> (+public URL)', async () => {
    const f = await fundedMerchant(t.url, 'v2', '1000.00');
    const secret = f.merchant.webhook_secret;
    for (const h of await deliveriesOfOnePayout(f)) {
      expect(h.headers['user-agent']).toBe(`Payrail-Webhook/${VERSION} (+https://pay.example.test)`);
      expect(h.headers['x-signature']).toBe(`sha256=${hexHmac(secret, h.body)}`);
      expect(verifyBodySignature(secret, h.body, h.headers['x-signature'])).toBe(true);
      // Compact JSON: re-serialising the parsed body gives the same bytes, so a re-serialising receiver verifies.
      expect(JSON.stringify(JSON.parse(h.body))).toBe(h.body);
      expect(h.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
      expect(verifiesStandard(secret, h)).toBe(true);
      // Another merchant's secret verifies neither header.
      const other = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
      expect(verifyBodySignature(other, h.body, h.headers['x-signature'])).toBe(false);
    }
  });

  it('rotation: 24 h of both secrets in both headers, the previous one being the secret current just before', async () => {
    const f = await fundedMerchant(t.url, 'v1', '1000.00');
    const original = f.merchant.webhook_secret;

    const first = await rotate(f.merchant.merchant_id);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      merchant_id: f.merchant.merchant_id,
      webhook_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/),
      previous_secret_expires_at: expect.any(String),
    });
    const second = first.body.webhook_secret as string;
    expect(second).not.toBe(original);
    const expiresIn = Date.parse(first.body.previous_secret_expires_at as string) - Date.now();
    expect(expiresIn).toBeGreaterThan(DAY_MS - 60_000);
    expect(expiresIn).toBeLessThanOrEqual(DAY_MS + 1000);

    for (const h of await deliveriesOfOnePayout(f)) {
      expect((h.headers['webhook-signature'] as string).split(' ')).toHaveLength(2);
      expect(verifiesStandard(second, h)).toBe(true);
      expect(verifiesStandard(original, h)).toBe(true);
      expect(h.headers['x-signature']).toBe(`sha256=${hexHmac(second, h.body)},sha256=${hexHmac(original, h.body)}`);
      expect(verifyBodySignature(original, h.body, h.headers['x-signature'])).toBe(true);
    }

    // A second rotation within the 24 h: the previous secret is now the one from the first rotation, and the
    // original stops at once.
    const again = await rotate(f.merchant.merchant_id);
    expect(again.status).toBe(200);
    const third = again.body.webhook_secret as string;
    for (const h of await deliveriesOfOnePayout(f)) {
      expect(verifiesStandard(third, h)).toBe(true);
      expect(verifiesStandard(second, h)).toBe(true);
      expect(verifiesStandard(original, h)).toBe(false);
      expect(h.headers['x-signature']).toBe(`sha256=${hexHmac(third, h.body)},sha256=${hexHmac(second, h.body)}`);
    }

    // 24 h later (moved by hand): only the current secret signs.
    await t.db.query(
      `UPDATE merchants SET previous_webhook_secret_expires_at = now() - interval '1 second' WHERE id = $1`,
      [f.merchant.merchant_id],
    );
    for (const h of await deliveriesOfOnePayout(f)) {
      expect((h.headers['webhook-signature'] as string).split(' ')).toHaveLength(1);
      expect(verifiesStandard(third, h)).toBe(true);
      expect(verifiesStandard(second, h)).toBe(false);
      expect(h.headers['x-signature']).toBe(`sha256=${hexHmac(third, h.body)}`);
    }

    // The merchant view never shows a secret.
    const view = await admin(t.url, 'GET', `/admin/v1/merchants/${f.merchant.merchant_id}`);
    for (const s of [original, second, third]) expect(JSON.stringify(view.body)).not.toContain(s);
  });

  it('examples/webhook-receiver.mjs verifies and decrypts real deliveries and survives junk requests', async () => {
    const f = await fundedMerchant(t.url, 'v1', '1000.00');
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [new URL('../../../../examples/webhook-receiver.mjs', import.meta.url).pathname],
      {
        env: {
          PATH: process.env.PATH,
          PORT: String(port),
          WEBHOOK_SECRET: f.merchant.webhook_secret,
          API_KEY: f.merchant.api_key,
          SECRET_KEY: f.merchant.secret_key,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    try {
      await eventually(() => err.includes('webhooks on'));
      const hooks = `http://127.0.0.1:${port}/hooks`;
      // Junk: no signature, short and malformed signatures of both kinds.
      for (const headers of <Record<string, string>[]>[
        {},
        {
          'webhook-id': 'EV1',
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': 'v1,AA',
        },
        { 'webhook-signature': 'v1' },
        { 'x-signature': 'sha256=00' },
        { 'x-signature': 'nonsense' },
      ]) {
        const res = await fetch(hooks, { method: 'POST', headers, body: '{"id":"EV1"}' });
        expect(res.status).toBe(401);
      }
      await initiateOk(
        f.client,
        payoutRequest('flat', {
          wallet_id: f.merchant.wallet_id,
          beneficiary_ifsc: SANDBOX.ifsc,
          beneficiary_acc_number: SANDBOX.success,
          callback_url: hooks,
        }),
      );
      await eventually(() => out.includes('"payout.success"'));
      const events = out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; data: { status: string } });
      expect(events.map((e) => `${e.type}:${e.data.status}`)).toEqual([
        'payout.processing:PROCESSING',
        'payout.success:SUCCESS',
      ]);
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill();
    }
  });

  it('rotating an unknown merchant answers 404', async () => {
    const res = await rotate('MC01ARZ3NDEKTSV4RRFFQ69G5FAV');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
  });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
