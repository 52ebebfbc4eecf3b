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
  m = await createMerchant(t.url, 'CLI merchant', '10000.00');
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
const sid = () => `cli-${process.pid}-${++seq}`;
const send = (senderId: string, account: string, ...extra: string[]) =>
  run(
    'payout',
    'send',
    '--sender-id',
    senderId,
    '--wallet',
    m.wallet_id,
    '--amount',
    '100',
    '--name',
    'Asha Rao',
    '--account',
    account,
    '--ifsc',
    'SBOX0000001',
    ...extra,
  );

describe('merchant commands', () => {
  it('token prints a bearer token (V2 by default, V1 with --scheme)', async () => {
    const [plain, json, v1] = await Promise.all([
      run('token'),
      run('token', '--json'),
      run('token', '--json', '--scheme', 'v1'),
    ]);
    expect(plain.code).toBe(0);
    expect(plain.stdout.trim()).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(json.json).toMatchObject({ scheme: 'v2' });
    expect(new Date(json.json.expiresAt).getTime()).toBeGreaterThan(Date.now());
    expect(v1.json.scheme).toBe('v1');
  });

  it('payout send, status (by id and sender id) and balance', async () => {
    const senderId = sid();
    const sent = await send(senderId, '100000000001', '--json', '--remarks', 'invoice 7');
    expect(sent.code).toBe(0);
    expect(sent.json).toMatchObject({ senderId, status: 'INITIATED', amount: '100.00', remarks: 'invoice 7' });
    const [byId, bySender, human, neither, unknown] = await Promise.all([
      run('payout', 'status', sent.json.transactionId, '--json'),
      run('payout', 'status', '--sender-id', senderId, '--json'),
      run('payout', 'status', sent.json.transactionId),
      run('payout', 'status'),
      run('payout', 'status', 'PT01JD3K8Q5W2V7X9Y0Z1A2B3C4D', '--json'),
    ]);
    expect(byId.json.transactionId).toBe(sent.json.transactionId);
    expect(bySender.json.transactionId).toBe(sent.json.transactionId);
    expect(human.stdout).toMatch(/Transaction ID:\s+PT/);
    expect(human.stdout).toMatch(/Amount:\s+100\.00 INR via IMPS/);
    expect(neither.code).toBe(2);
    // The same command again shows the same payout (no second one); another payout under the sender id is refused.
    const [repeat, different] = await Promise.all([
      send(senderId, '100000000001', '--json', '--remarks', 'invoice 7'),
      send(senderId, '100000000002', '--json'),
    ]);
    expect(repeat.code).toBe(0);
    expect(repeat.json.transactionId).toBe(sent.json.transactionId);
    expect(different.code).toBe(4);
    expect(different.json.error).toMatchObject({ type: 'ConflictError', code: 4009 });
    expect(unknown.code).toBe(5);
    expect(unknown.json.error).toMatchObject({ type: 'NotFoundError', code: 4103, httpStatus: 404 });

    const [balance, fromEnv] = await Promise.all([
      run('balance', m.wallet_id, '--json'),
      cli(['balance'], { ...env, PAYRAIL_WALLET_ID: m.wallet_id }),
    ]);
    expect(balance.code).toBe(0);
    expect(balance.json).toMatchObject({ walletId: m.wallet_id, currency: 'INR' });
    expect(fromEnv.stdout).toMatch(/Balance:\s+\d+\.\d\d INR/);
  });

  it('payout send --wait exits by outcome: 0 on SUCCESS, 7 on a refund', async () => {
    const [ok, failed] = await Promise.all([
      send(sid(), '100000000001', '--wait'),
      send(sid(), '100000000002', '--wait', '--json'),
    ]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/Status:\s+SUCCESS/);
    expect(failed.code).toBe(7);
    expect(failed.json.status).toBe('REFUNDED');
  });

  it('payout watch streams status changes; exit 8 on timeout, 0 on an awaited status', async () => {
    const payrail = new Payrail({ baseUrl: t.url, apiKey: m.api_key, secretKey: m.secret_key });
    const base = { walletId: m.wallet_id, paymentMode: 'IMPS' as const, amount: '5.00' };
    const [fine, pending] = await Promise.all([
      payrail.payouts.initiate({
        ...base,
        senderId: sid(),
        beneficiary: { name: 'A B', accountNumber: '100000000001', ifsc: 'SBOX0000001' },
      }),
      payrail.payouts.initiate({
        ...base,
        senderId: sid(),
        beneficiary: { name: 'C D', accountNumber: '100000000003', ifsc: 'SBOX0000001' },
      }),
    ]);
    const [watched, timeout, untilPending] = await Promise.all([
      run('payout', 'watch', fine.transactionId, '--json', '--interval', '0.05'),
      run('payout', 'watch', '--sender-id', pending.senderId, '--timeout', '1', '--interval', '0.05'),
      run('payout', 'watch', pending.transactionId, '--until', 'PENDING', '--interval', '0.05'),
    ]);
    expect(watched.code).toBe(0);
    const lines = watched.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { status: string });
    expect(lines.at(-1)?.status).toBe('SUCCESS');
    expect(timeout.code).toBe(8);
    expect(timeout.stderr).toContain('PENDING');
    expect(untilPending.code).toBe(0);
    expect(untilPending.stdout).toContain('PENDING');
  });

  it('exit codes of refusals: 4 rejected, 6 bank down, 3 wrong credentials, 2 missing credentials', async () => {
    const [poor, badIfsc, down, wrong, missing] = await Promise.all([
      run(
        'payout',
        'send',
        '--sender-id',
        sid(),
        '--wallet',
        m.wallet_id,
        '--amount',
        '99999',
        '--name',
        'A B',
        '--account',
        '100000000001',
        '--ifsc',
        'SBOX0000001',
        '--json',
      ),
      run(
        'payout',
        'send',
        '--sender-id',
        sid(),
        '--wallet',
        m.wallet_id,
        '--amount',
        '1',
        '--name',
        'A B',
        '--account',
        '100000000001',
        '--ifsc',
        'BAD',
        '--json',
      ),
      run(
        'payout',
        'send',
        '--sender-id',
        sid(),
        '--wallet',
        m.wallet_id,
        '--amount',
        '1',
        '--name',
        'A B',
        '--account',
        '100000000001',
        '--ifsc',
        'DOWN0000001',
      ),
      cli(['balance', m.wallet_id, '--json'], { ...env, PAYRAIL_SECRET_KEY: 'B'.repeat(16) }),
      cli(['balance', m.wallet_id], { PAYRAIL_URL: t.url }),
    ]);
    expect(poor.code).toBe(4);
    expect(poor.json.error).toMatchObject({
      type: 'InsufficientFundsError',
      code: 4002,
      httpStatus: 422,
      operation: 'payouts.initiate',
    });
    expect(badIfsc.code).toBe(4);
    expect(badIfsc.json.error).toMatchObject({ type: 'ValidationError', code: 4007 });
    expect(down.code).toBe(6);
    expect(down.stderr).toMatch(/^payrail: Bank down for maintenance \[4014\]/);
    expect(wrong.code).toBe(3);
    expect(wrong.json.error).toMatchObject({ type: 'AuthenticationError', code: 4001 });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('PAYRAIL_API_KEY');
  });

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
    expect(malformed.json.error.code).toBe(4105);
    expect(dup.code).toBe(4);
    expect(dup.json.error).toMatchObject({ type: 'ConflictError', code: 4112 });
    expect(dup.json.error.existing.txnId).toBe(txnId);
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
    const hook = await eventually(() => receiver.at('/hook').find((h) => h.body.includes('payout.success')));
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
    const [ok, human, bad, oldOk, oldRefused, split, noSecret] = await Promise.all([
      run('webhook', 'verify', good, '--json'),
      run('webhook', 'verify', good),
      run('webhook', 'verify', tampered, '--json'),
      run('webhook', 'verify', old, '--json'),
      run('webhook', 'verify', old, '--max-age', '300', '--json'),
      run('webhook', 'verify', '--body', bodyFile, '--headers', headersFile, '--json'),
      cli(['webhook', 'verify', good], { ...env, PAYRAIL_WEBHOOK_SECRET: undefined }),
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
    expect(bad.json.error).toMatchObject({ type: 'WebhookVerificationError', code: 'WEBHOOK_SIGNATURE' });
    expect(oldOk.code).toBe(0);
    expect(oldRefused.code).toBe(7);
    expect(oldRefused.json.error.code).toBe('WEBHOOK_STALE');
    expect(split.code).toBe(0);
    expect(split.json.id).toBe(id);
    expect(noSecret.code).toBe(2);
  });
});
