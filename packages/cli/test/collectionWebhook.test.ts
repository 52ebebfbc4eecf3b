import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signWebhook } from '@payrail/protocol';
import { Payrail } from '@payrail/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, WebhookReceiver } from '../../server/test/support/webhookReceiver.ts';
import { cli, createMerchant, startTestServer, type TestMerchant, type TestServer } from './support.ts';

let t: TestServer;
let m: TestMerchant;
let env: Record<string, string>;
let dir: string;
beforeAll(async () => {
  t = await startTestServer('pglite');
  m = await createMerchant(t.url, 'CLI collections', '100.00');
  env = {
    PAYRAIL_URL: t.url,
    PAYRAIL_API_KEY: m.api_key,
    PAYRAIL_SECRET_KEY: m.secret_key,
    PAYRAIL_WEBHOOK_SECRET: m.webhook_secret,
  };
  dir = await mkdtemp(join(tmpdir(), 'payrail-cli-'));
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

const run = (...args: string[]) => cli(args, env);
let seq = 0;
const sid = () => `clic-${process.pid}-${++seq}`;
describe('collections', () => {
  it('collection create, status and (sandbox) simulate', async () => {
    const senderId = sid();
    const created = await run(
      'collection',
      'create',
      '--sender-id',
      senderId,
      '--amount',
      '250',
      '--remarks',
      'order 9',
      '--json',
    );
    expect(created.code).toBe(0);
    expect(created.json).toMatchObject({ senderId, amount: '250.00', status: 'INITIATED', paymentMode: 'Intent' });
    expect(created.json.intentUrl).toMatch(/^upi:\/\/pay\?/);
    const txnId = created.json.txnId as string;
    const simulated = await run('collection', 'simulate', txnId, 'success', '--utr', 'UPI9', '--json');
    expect(simulated.json).toMatchObject({ status: 'SUCCESS', utr: 'UPI9' });
    const [status, bySender, malformed, dup] = await Promise.all([
      run('collection', 'status', txnId),
      run('collection', 'status', '--sender-id', senderId, '--json'),
      run('collection', 'status', 'nope', '--json'),
      run('collection', 'create', '--sender-id', senderId, '--amount', '250', '--json'),
    ]);
    expect(status.stdout).toMatch(/Status:\s+SUCCESS/);
    expect(bySender.json.txnId).toBe(txnId);
    expect(malformed.code).toBe(4);
    expect(malformed.errJson.error.code).toBe(4105);
    expect(dup.code).toBe(4);
    expect(dup.errJson.error).toMatchObject({ type: 'ConflictError', code: 4112 });
    expect(dup.errJson.error.existing.txnId).toBe(txnId);
  });
});

describe('webhook verify', () => {
  let receiver: WebhookReceiver;
  let delivery: { headers: Record<string, string>; body: string };
  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    const payrail = new Payrail({ baseUrl: t.url, apiKey: m.api_key, secretKey: m.secret_key });
    await payrail.payouts.initiate({
      senderId: sid(),
      walletId: m.wallet_id,
      paymentMode: 'IMPS',
      amount: '3.00',
      beneficiary: { name: 'Asha Rao', accountNumber: '100000000001', ifsc: 'SBOX0000001' },
      callbackUrl: `${receiver.url}/hook`,
    });
    const hook = await eventually(() => receiver.at('/hook').find((h) => h.body.includes('payout.success')), 20_000);
    if (!hook) throw new Error('no webhook received');
    delivery = { headers: hook.headers as Record<string, string>, body: hook.body };
  });
  afterAll(() => receiver?.stop());

  it('accepts a genuine saved delivery and refuses a tampered or stale one (exit 7)', async () => {
    const good = join(dir, 'good.json');
    const tampered = join(dir, 'tampered.json');
    const old = join(dir, 'old.json');
    const bodyFile = join(dir, 'body.txt');
    const headersFile = join(dir, 'headers.txt');
    const id = delivery.headers['webhook-id'] as string;
    const stale = signWebhook(m.webhook_secret, id, new Date(Date.now() - 3_600_000), delivery.body);
    await Promise.all([
      writeFile(good, JSON.stringify(delivery)),
      writeFile(
        tampered,
        JSON.stringify({ ...delivery, body: delivery.body.replace('payout.success', 'payout.failed') }),
      ),
      writeFile(old, JSON.stringify({ headers: stale, body: delivery.body })),
      writeFile(bodyFile, delivery.body),
      writeFile(
        headersFile,
        Object.entries(delivery.headers)
          .map(([k, v]) => `${k}: ${v}`)
          .join('\n'),
      ),
    ]);
    const [ok, human, bad, oldOk, oldRefused, split] = await Promise.all([
      run('webhook', 'verify', good, '--json'),
      run('webhook', 'verify', good),
      run('webhook', 'verify', tampered, '--json'),
      run('webhook', 'verify', old, '--json'),
      run('webhook', 'verify', old, '--max-age', '300', '--json'),
      run('webhook', 'verify', '--body', bodyFile, '--headers', headersFile, '--json'),
    ]);
    expect(ok.code).toBe(0);
    expect(ok.json).toMatchObject({
      id,
      type: 'payout.success',
      kind: 'payout',
      data: { status: 'SUCCESS', amount: '3.00' },
    });
    expect(human.stdout).toMatch(/Verdict:\s+genuine/);
    expect(bad.code).toBe(7);
    expect(bad.errJson.error).toMatchObject({ type: 'WebhookVerificationError', code: 'WEBHOOK_SIGNATURE' });
    expect(oldOk.code).toBe(0);
    expect(oldRefused.code).toBe(7);
    expect(oldRefused.errJson.error.code).toBe('WEBHOOK_STALE');
    expect(split.code).toBe(0);
    expect(split.json.id).toBe(id);
  });
});
