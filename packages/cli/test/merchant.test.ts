import { Payrail } from '@payrail/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, createMerchant, startTestServer, type TestMerchant, type TestServer } from './support.ts';

let t: TestServer;
let m: TestMerchant;
let env: Record<string, string>;
beforeAll(async () => {
  t = await startTestServer('pglite');
  m = await createMerchant(t.url, 'CLI merchant', '10000.00');
  env = {
    PAYRAIL_URL: t.url,
    PAYRAIL_API_KEY: m.api_key,
    PAYRAIL_SECRET_KEY: m.secret_key,
    PAYRAIL_WEBHOOK_SECRET: m.webhook_secret,
  };
});
afterAll(() => t?.close());

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

  // Eleven CLI processes, four of them at once: allow for a busy machine.
  it('payout send, status (by id and sender id) and balance', { timeout: 120_000 }, async () => {
    const senderId = sid();
    const sent = await send(senderId, '100000000001', '--json', '--remarks', 'invoice 7');
    expect(sent.code).toBe(0);
    expect(sent.json).toMatchObject({
      senderId,
      status: 'INITIATED',
      amount: '100.00',
      remarks: 'invoice 7',
      alreadyExisted: false,
    });
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
    // The same command again shows the same payout (no second one), and says it already existed: a flag in the
    // JSON, a note on stderr for people; exit 0 either way. Another payout under the sender id is refused (exit 4).
    const [repeat, repeatHuman, different, differentHuman] = await Promise.all([
      send(senderId, '100000000001', '--json', '--remarks', 'invoice 7'),
      send(senderId, '100000000001', '--remarks', 'invoice 7'),
      send(senderId, '100000000002', '--json'),
      send(senderId, '100000000002'),
    ]);
    expect(repeat.code).toBe(0);
    expect(repeat.json).toMatchObject({ transactionId: sent.json.transactionId, alreadyExisted: true });
    expect(repeat.stderr).toBe('');
    expect(repeatHuman.code).toBe(0);
    expect(repeatHuman.stderr).toContain(
      `Sender id ${senderId} already existed: this is payout ${sent.json.transactionId} made earlier`,
    );
    expect(repeatHuman.stdout).toMatch(/Transaction ID:\s+PT/);
    expect(different.code).toBe(4);
    expect(different.errJson.error).toMatchObject({ type: 'ConflictError', code: 4009, matchesRequest: false });
    expect(different.errJson.error.existing.transactionId).toBe(sent.json.transactionId);
    expect(differentHuman.code).toBe(4);
    // In the CLI's words (issue 32): what happened, what differed, and what to do; never the SDK's `onDuplicate`.
    expect(differentHuman.stderr).toContain(
      `payrail: sender id ${senderId} was already used for payout ${sent.json.transactionId} (`,
    );
    expect(differentHuman.stderr).toContain(
      '100.00 INR by IMPS to account 100000000001, IFSC SBOX0000001) with other details ' +
        '(it had --account 100000000001); nothing was sent now [4009]',
    );
    expect(differentHuman.stderr).toContain(
      `Use a new --sender-id for a new payout, or run \`payrail payout status --sender-id ${senderId}\` to see`,
    );
    expect(differentHuman.stderr).not.toMatch(/onDuplicate|senderId/);
    expect(different.errJson.error.message).toMatch(/^sender id .* with other details/);
    expect(unknown.code).toBe(5);
    expect(unknown.errJson.error).toMatchObject({ type: 'NotFoundError', code: 4103, httpStatus: 404 });

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
    expect(failed.json).toMatchObject({ status: 'REFUNDED', alreadyExisted: false });
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

  it('exit codes of refusals: 4 rejected, 6 bank down, 3 wrong credentials', async () => {
    const [poor, badIfsc, down, wrong] = await Promise.all([
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
    ]);
    expect(poor.code).toBe(4);
    expect(poor.errJson.error).toMatchObject({
      type: 'InsufficientFundsError',
      code: 4002,
      httpStatus: 422,
      operation: 'payouts.initiate',
    });
    expect(badIfsc.code).toBe(4);
    expect(badIfsc.errJson.error).toMatchObject({ type: 'ValidationError', code: 4007 });
    expect(down.code).toBe(6);
    expect(down.stderr).toMatch(/^payrail: Bank down for maintenance \[4014\]/);
    expect(wrong.code).toBe(3);
    expect(wrong.errJson.error).toMatchObject({ type: 'AuthenticationError', code: 4001 });
  });

  it('an amount outside the range of its mode names the rule and the modes that take it (issue 32)', async () => {
    const rtgs = await send(sid(), '100000000001', '--mode', 'RTGS', '--amount', '87000');
    expect(rtgs.code).toBe(4);
    expect(rtgs.stderr).toBe(
      'payrail: Amount below the minimum: RTGS payouts start at 200000.00 rupees; IMPS or NEFT can send ' +
        '87000.00 [4005]\n',
    );
  });
});
