import { CommanderError, type Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProgram } from '../src/program.ts';
import { Payrail } from '@payrail/sdk';
import { cli, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from './support.ts';

let t: TestServer;
let env: Record<string, string>;
beforeAll(async () => {
  t = await startTestServer('pglite');
  env = { PAYRAIL_URL: t.url, PAYRAIL_ADMIN_TOKEN: TEST_ADMIN_TOKEN };
});
afterAll(() => t?.close());

const op = (...args: string[]) => cli(args, env);

describe('operator commands', () => {
  let merchantId: string;
  let walletId: string;
  let creds: { api_key: string; secret_key: string };

  it('merchant create prints the credentials once (--json and table)', async () => {
    const r = await op('merchant', 'create', 'Acme Traders', '--json');
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ name: 'Acme Traders' });
    expect(r.json.merchant_id).toMatch(/^MR/);
    expect(r.json.api_key).toHaveLength(32);
    expect(r.json.webhook_secret).toMatch(/^whsec_/);
    merchantId = r.json.merchant_id;
    walletId = r.json.wallet_id;
    creds = r.json;
    const human = await op('merchant', 'create', 'Beta Stores');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/Merchant ID:\s+MR/);
    expect(human.stdout).toMatch(/Secret key:\s+\S{16}/);
  });

  it('merchant show and update (limits, settings, status)', async () => {
    const upd = await op(
      'merchant',
      'update',
      merchantId,
      '--daily-limit',
      '5000',
      '--monthly-limit',
      'none',
      '--json',
    );
    expect(upd.code).toBe(0);
    expect(upd.json).toMatchObject({ daily_limit: '5000.00', monthly_limit: null });
    const show = await op('merchant', 'show', merchantId);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/Daily limit:\s+5000\.00/);
    expect(show.stdout).toContain(walletId);
    const suspended = await op('merchant', 'update', merchantId, '--status', 'suspended', '--json');
    expect(suspended.json.status).toBe('suspended');
    expect((await op('merchant', 'update', merchantId, '--status', 'active')).code).toBe(0);
    // Nothing to change, or a bad value: usage errors.
    const usage = await Promise.all([
      op('merchant', 'update', merchantId),
      op('merchant', 'update', merchantId, '--status', 'gone'),
      op('merchant', 'update', merchantId, '--daily-limit', '-5'),
    ]);
    expect(usage.map((r) => r.code)).toEqual([2, 2, 2]);
  });

  it('wallet create, credit (idempotent by reference) and show', async () => {
    const created = await op('wallet', 'create', merchantId, '--json');
    expect(created.code).toBe(0);
    expect(created.json.wallet_id).toMatch(/^WL/);
    const credit = await op('wallet', 'credit', walletId, '1000.50', '--reference', 'bank-77', '--json');
    expect(credit.json).toMatchObject({ wallet_id: walletId, balance: '1000.50' });
    const again = await op('wallet', 'credit', walletId, '1000.50', '--reference', 'bank-77');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('already applied');
    const show = await op('wallet', 'show', walletId, '--json');
    expect(show.json).toMatchObject({ balance: '1000.50', on_hold: '0.00', merchant_id: merchantId });
    expect((await op('wallet', 'credit', walletId, '10.001')).code).toBe(2);
  });

  it('payouts list, show and resolve; collections list', async () => {
    const payrail = new Payrail({ baseUrl: t.url, apiKey: creds.api_key, secretKey: creds.secret_key });
    const pending = await payrail.payouts.initiate({
      senderId: 'op-pending-1',
      walletId,
      paymentMode: 'IMPS',
      amount: '10.00',
      beneficiary: { name: 'Meera Iyer', accountNumber: '100000000003', ifsc: 'SBOX0000001' },
    });
    await payrail.payouts.waitFor({ transactionId: pending.transactionId }, { until: 'PENDING', intervalMs: 20 });
    const list = await op('payouts', 'list', '--merchant', merchantId, '--status', 'PENDING', '--json');
    expect(list.code).toBe(0);
    expect(list.json.data.map((p: { transaction_id: string }) => p.transaction_id)).toEqual([pending.transactionId]);
    const table = await op('payouts', 'list', '--merchant', merchantId);
    expect(table.stdout.split('\n')[0]).toMatch(/^TRANSACTION ID\s+SENDER ID/);
    expect(table.stdout).toContain('op-pending-1');
    expect((await op('payouts', 'show', pending.transactionId, '--json')).json.status).toBe('PENDING');
    const resolved = await op('payouts', 'resolve', pending.transactionId, 'success', '--utr', 'UTR42', '--json');
    expect(resolved.code).toBe(0);
    expect(resolved.json).toMatchObject({ status: 'SUCCESS', utr_number: 'UTR42' });
    // Only a PENDING payout can be resolved: a conflict is a refusal (exit 4).
    expect((await op('payouts', 'resolve', pending.transactionId, 'FAILED')).code).toBe(4);

    const c = await payrail.collections.initiate({ senderId: 'op-col-1', amount: '5.00' });
    const cols = await op('collections', 'list', '--merchant', merchantId, '--json');
    expect(cols.code).toBe(0);
    expect(cols.json.data[0]).toMatchObject({ txnId: c.txnId, senderId: 'op-col-1' });
    expect((await op('collections', 'list', '--merchant', merchantId)).stdout).toContain(c.txnId);
  });

  it('webhooks deliveries and replay', async () => {
    const payrail = new Payrail({ baseUrl: t.url, apiKey: creds.api_key, secretKey: creds.secret_key });
    const p = await payrail.payouts.initiate({
      senderId: 'op-hook-1',
      walletId,
      paymentMode: 'IMPS',
      amount: '1.00',
      beneficiary: { name: 'Asha Rao', accountNumber: '100000000001', ifsc: 'SBOX0000001' },
      callbackUrl: 'http://127.0.0.1:9/nowhere',
    });
    await payrail.payouts.waitFor({ transactionId: p.transactionId }, { intervalMs: 20 });
    let deliveries;
    for (let i = 0; i < 50; i++) {
      deliveries = await op('webhooks', 'deliveries', '--subject', p.transactionId, '--json');
      if (deliveries.json?.data.length >= 2) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(deliveries?.code).toBe(0);
    const ids = deliveries?.json.data.map((d: { id: string }) => d.id) as string[];
    expect(ids.length).toBeGreaterThanOrEqual(2);
    const human = await op('webhooks', 'deliveries', '--merchant', merchantId);
    expect(human.stdout).toMatch(/^DELIVERY ID\s+TYPE/);
    const replay = await op('webhooks', 'replay', ids[0] as string, '--json');
    expect(replay.code).toBe(0);
    expect(replay.json).toMatchObject({ id: ids[0], state: 'pending' });
    expect((await op('webhooks', 'replay', 'EV01JD3K8Q5W2V7X9Y0Z1A2B3C4D')).code).toBe(5);
  });

  it('payouts list pages with --limit/--cursor and follows every page with --all', async () => {
    const first = await op('payouts', 'list', '--limit', '1', '--json');
    expect(first.json.data).toHaveLength(1);
    expect(first.json.has_more).toBe(true);
    const second = await op('payouts', 'list', '--limit', '1', '--cursor', first.json.next_cursor, '--json');
    expect(second.json.data[0].transaction_id).not.toBe(first.json.data[0].transaction_id);
    const all = await op('payouts', 'list', '--limit', '1', '--all', '--json');
    expect(all.json.data.length).toBeGreaterThanOrEqual(2);
    expect(all.json.has_more).toBe(false);
  });

  it('ledger verify', async () => {
    const r = await op('ledger', 'verify', '--json');
    expect(r.code).toBe(0);
    expect(r.json.ok).toBe(true);
    expect(r.json.wallets_checked).toBeGreaterThan(0);
    expect((await op('ledger', 'verify')).stdout).toMatch(/^Ledger OK/);
  });

  it('exit codes: bad admin token 3, unknown merchant 5, no admin token 2, unreachable 6', async () => {
    const [bad, missing, none, down] = await Promise.all([
      cli(['merchant', 'show', merchantId, '--json'], { ...env, PAYRAIL_ADMIN_TOKEN: 'wrong' }),
      op('merchant', 'show', 'MR01JD3K8Q5W2V7X9Y0Z1A2B3C4D'),
      cli(['ledger', 'verify'], { PAYRAIL_URL: t.url, PAYRAIL_DATA_DIR: '/nonexistent' }),
      cli(['ledger', 'verify'], { ...env, PAYRAIL_URL: 'http://127.0.0.1:9' }),
    ]);
    expect(bad.code).toBe(3);
    expect(bad.json.error).toMatchObject({ type: 'AuthenticationError', httpStatus: 401 });
    expect(missing.code).toBe(5);
    expect(missing.stderr).toMatch(/^payrail: merchant not found/);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('PAYRAIL_ADMIN_TOKEN');
    expect(down.code).toBe(6);
  });
});

describe('help', () => {
  it('every command and group has --help (in process), and the binary answers it with exit 0', async () => {
    const paths: string[][] = [];
    const walk = (cmd: Command, path: string[]) => {
      paths.push(path);
      for (const sub of cmd.commands) if (sub.name() !== 'help') walk(sub, [...path, sub.name()]);
    };
    walk(createProgram(), []);
    expect(paths.length).toBeGreaterThan(30);
    for (const path of paths) {
      const program = createProgram();
      let text = '';
      const all = (cmd: Command): Command[] => [cmd, ...cmd.commands.flatMap(all)];
      for (const cmd of all(program))
        cmd.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
      const err = await program.parseAsync([...path, '--help'], { from: 'user' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CommanderError);
      expect({ path, code: (err as CommanderError).exitCode }).toEqual({ path, code: 0 });
      expect(text).toContain(`Usage: payrail ${path.join(' ')}`.trimEnd());
    }
    const spawned = await Promise.all(
      [[], ['payout'], ['payout', 'send'], ['merchant', 'update']].map((p) => cli([...p, '--help'])),
    );
    for (const r of spawned) {
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('Usage: payrail');
    }
    expect(spawned[0]?.stdout).toContain('Exit codes:');
  });

  it('unknown commands and options are usage errors (exit 2)', async () => {
    const [unknown, bogus, group, version] = await Promise.all([
      cli(['nonsense']),
      cli(['payout', 'status', '--bogus']),
      cli(['wallet']),
      cli(['--version']),
    ]);
    expect(unknown.code).toBe(2);
    expect(bogus.code).toBe(2);
    expect(group.code).toBe(2);
    expect(version.stdout.trim()).toBe('0.1.0');
  });
});
