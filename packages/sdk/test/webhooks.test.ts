import { encryptJson, signWebhook } from '@payrail/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, WebhookReceiver, type ReceivedWebhook } from '../../server/test/support/webhookReceiver.ts';
import {
  ConfigurationError,
  Payrail,
  WebhookVerificationError,
  type PayoutEvent,
  type WebhookFailure,
} from '../src/index.ts';
import {
  admin,
  clientFor,
  createMerchant,
  payoutInput,
  startTestServer,
  type TestMerchant,
  type TestServer,
} from './support.ts';

let t: TestServer;
let receiver: WebhookReceiver;
let m: TestMerchant;
let legacy: TestMerchant;
let hook: ReceivedWebhook;
let legacyHook: ReceivedWebhook;

async function deliveredFor(merchant: TestMerchant, scheme: 'v1' | 'v2', path: string): Promise<ReceivedWebhook> {
  const payrail = clientFor(t.url, merchant, { scheme });
  await payrail.payouts.initiate(payoutInput(merchant.wallet_id, { callbackUrl: receiver.url + path }));
  const found = await eventually(() => receiver.at(path).find((h) => h.body.includes('"payout.success"')), 20_000);
  return found as ReceivedWebhook;
}

beforeAll(async () => {
  t = await startTestServer('pglite');
  receiver = await new WebhookReceiver().start();
  m = await createMerchant(t.url, 'Hooks', '1000.00');
  legacy = await createMerchant(t.url, 'Legacy hooks', '1000.00');
  [hook, legacyHook] = await Promise.all([deliveredFor(m, 'v2', '/v2'), deliveredFor(legacy, 'v1', '/v1')]);
});
afterAll(async () => {
  await receiver?.stop();
  await t?.close();
});

async function rejection(promise: Promise<unknown>, reason: WebhookFailure) {
  const err = await promise.then(
    () => new Error('expected a rejection'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WebhookVerificationError);
  expect(err).toMatchObject({ reason, operation: 'webhooks.verify' });
}

describe('webhooks.verify', () => {
  it('accepts a genuine delivery and returns the typed, decrypted event', async () => {
    const event = (await clientFor(t.url, m).webhooks.verify(hook.body, hook.headers)) as PayoutEvent;
    expect(event).toMatchObject({ type: 'payout.success', kind: 'payout' });
    expect(event.id).toBe(hook.headers['webhook-id']);
    expect(event.data.status).toBe('SUCCESS');
    expect(event.data.utr).toMatch(/\S/);
    expect(event.data.amount).toBe('100.00');
    expect(event.createdAt).toBeInstanceOf(Date);
    // Bytes and a Headers object work too.
    const again = await clientFor(t.url, m).webhooks.verify(
      Buffer.from(hook.body),
      new Headers(hook.headers as Record<string, string>),
    );
    expect(again.id).toBe(event.id);
  });

  it('returns a deposit.credited event as a typed deposit', async () => {
    const patched = await admin(t.url, 'PATCH', `/admin/v1/merchants/${m.merchant_id}`, {
      collection_callback_url: `${receiver.url}/deposits`,
    });
    expect(patched.status).toBe(200);
    const wallet = await admin(t.url, 'GET', `/admin/v1/wallets/${m.wallet_id}`);
    const va = (wallet.body.virtual_account as { number: string }).number;
    const deposited = await admin(t.url, 'POST', '/admin/v1/sandbox/deposits', {
      virtual_account: va,
      amount: '75.25',
      utr: `SDKDEP${Date.now()}`,
      remitter_name: 'Asha Traders',
    });
    expect(deposited.status).toBe(200);
    const delivered = (await eventually(
      () => receiver.at('/deposits').find((h) => h.body.includes('"deposit.credited"')),
      20_000,
    )) as ReceivedWebhook;
    const event = await clientFor(t.url, m).webhooks.verify(delivered.body, delivered.headers);
    expect(event).toMatchObject({
      type: 'deposit.credited',
      kind: 'deposit',
      data: {
        depositId: deposited.body.deposit_id,
        walletId: m.wallet_id,
        virtualAccount: va,
        amount: '75.25',
        fees: '0.00',
        remitterName: 'Asha Traders',
        remitterAccount: null,
      },
    });
  });

  it('decrypts events of V1 transactions, whichever scheme the client uses', async () => {
    for (const scheme of ['v1', 'v2'] as const) {
      const event = await clientFor(t.url, legacy, { scheme }).webhooks.verify(legacyHook.body, legacyHook.headers);
      expect(event.kind).toBe('payout');
      expect(event.kind === 'payout' && event.data.status).toBe('SUCCESS');
    }
  });

  it('refuses a tampered body, a tampered signature and another merchant’s secret', async () => {
    const payrail = clientFor(t.url, m);
    await rejection(
      payrail.webhooks.verify(hook.body.replace('payout.success', 'payout.failed'), hook.headers),
      'signature',
    );
    await rejection(payrail.webhooks.verify(`${hook.body} `, hook.headers), 'signature');
    const badSig = { ...hook.headers, 'webhook-signature': 'v1,' + Buffer.alloc(32).toString('base64') };
    await rejection(payrail.webhooks.verify(hook.body, badSig), 'signature');
    await rejection(
      clientFor(t.url, { ...m, webhook_secret: legacy.webhook_secret }).webhooks.verify(hook.body, hook.headers),
      'signature',
    );
    const {
      'webhook-signature': _dropped,
      'x-signature': _alsoDropped,
      'x-paywize-signature': _droppedToo,
      ...unsigned
    } = hook.headers;
    await rejection(payrail.webhooks.verify(hook.body, unsigned), 'missing_headers');
  });

  it('verifies by X-Signature alone when the Standard Webhooks headers are absent', async () => {
    const payrail = clientFor(t.url, m);
    const xOnly = { 'x-signature': hook.headers['x-signature'], 'content-type': 'application/json' };
    const event = (await payrail.webhooks.verify(hook.body, xOnly)) as PayoutEvent;
    expect(event).toMatchObject({ id: hook.headers['webhook-id'], type: 'payout.success', kind: 'payout' });
    expect(event.data.status).toBe('SUCCESS');
    await rejection(payrail.webhooks.verify(hook.body.replace('payout.success', 'payout.failed'), xOnly), 'signature');
    await rejection(payrail.webhooks.verify(hook.body, { 'x-signature': '' }), 'missing_headers');
    for (const junk of ['sha256=', 'sha256=00', 'garbage', 'sha256=' + 'f'.repeat(64)]) {
      await rejection(payrail.webhooks.verify(hook.body, { 'x-signature': junk }), 'signature');
    }
    // Another merchant's secret does not verify it.
    await rejection(
      clientFor(t.url, { ...m, webhook_secret: legacy.webhook_secret }).webhooks.verify(hook.body, xOnly),
      'signature',
    );
  });

  it("verifies by the provider's X-Paywize-Signature alone (the same value as X-Signature)", async () => {
    const payrail = clientFor(t.url, m);
    expect(hook.headers['x-paywize-signature']).toBe(hook.headers['x-signature']);
    const paywizeOnly = { 'x-paywize-signature': hook.headers['x-paywize-signature'] };
    const event = (await payrail.webhooks.verify(hook.body, paywizeOnly)) as PayoutEvent;
    expect(event).toMatchObject({ type: 'payout.success', kind: 'payout' });
    await rejection(
      payrail.webhooks.verify(hook.body.replace('payout.success', 'payout.failed'), paywizeOnly),
      'signature',
    );
  });

  it('refuses a stale delivery, unless the age check is relaxed', async () => {
    const payrail = clientFor(t.url, m);
    const id = hook.headers['webhook-id'] as string;
    const old = signWebhook(m.webhook_secret, id, new Date(Date.now() - 10 * 60_000), hook.body);
    await rejection(payrail.webhooks.verify(hook.body, old), 'stale');
    const event = await payrail.webhooks.verify(hook.body, old, { toleranceSeconds: Infinity });
    expect(event.id).toBe(id);
    await rejection(
      payrail.webhooks.verify(hook.body, hook.headers, { now: new Date(Date.now() + 6 * 60_000) }),
      'stale',
    );
  });

  it('refuses signed bodies that are not readable Payrail events', async () => {
    const payrail = clientFor(t.url, m);
    const sign = (body: string, id = 'EV01JD3K8Q5W2V7X9Y0Z1A2B3C4D') =>
      signWebhook(m.webhook_secret, id, new Date(), body);
    await rejection(payrail.webhooks.verify('not json', sign('not json')), 'malformed');
    const otherId = JSON.stringify({ ...JSON.parse(hook.body), id: 'EV0000' });
    await rejection(payrail.webhooks.verify(otherId, sign(otherId)), 'malformed');
    const foreign = JSON.stringify({
      id: 'EV01JD3K8Q5W2V7X9Y0Z1A2B3C4D',
      type: 'payout.success',
      created_at: new Date().toISOString(),
      data: encryptJson({ transaction_id: 'PT1' }, 'v2', { apiKey: 'K'.repeat(32), secretKey: 'S'.repeat(16) }),
    });
    await rejection(payrail.webhooks.verify(foreign, sign(foreign)), 'undecryptable');
  });

  it('needs the webhook secret', async () => {
    const payrail = new Payrail({ baseUrl: t.url, apiKey: m.api_key, secretKey: m.secret_key });
    await expect(payrail.webhooks.verify(hook.body, hook.headers)).rejects.toBeInstanceOf(ConfigurationError);
  });
});
