import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Payrail } from '@payrail/sdk';
import { ConsoleSession } from '../../server/test/support/consoleClient.ts';
import { eventually } from '../../server/test/support/webhookReceiver.ts';
import { admin, cli, createMerchant, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from './support.ts';

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
  let beta: { id: string; apiKey: string; secretKey: string; walletId: string };

  it('merchant create prints the credentials once (--json and table)', async () => {
    const [r, human] = await Promise.all([
      op('merchant', 'create', 'Acme Traders', '--json'),
      op('merchant', 'create', 'Beta Stores'),
    ]);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ name: 'Acme Traders' });
    expect(r.json.merchant_id).toMatch(/^MR/);
    expect(r.json.api_key).toHaveLength(32);
    expect(r.json.webhook_secret).toMatch(/^whsec_/);
    merchantId = r.json.merchant_id;
    beta = {
      id: /Merchant ID:\s+(MR\w+)/.exec(human.stdout)?.[1] as string,
      apiKey: /API key:\s+(\w+)/.exec(human.stdout)?.[1] as string,
      secretKey: /Secret key:\s+(\w+)/.exec(human.stdout)?.[1] as string,
      walletId: /Wallet ID:\s+(WL\w+)/.exec(human.stdout)?.[1] as string,
    };
    walletId = r.json.wallet_id;
    creds = r.json;
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/Merchant ID:\s+MR/);
    expect(human.stdout).toMatch(/Secret key:\s+\S{16}/);
  });

  it('merchant update sets the default scheme and beneficiary verification', async () => {
    const [upd, badScore, badScheme] = await Promise.all([
      op(
        'merchant',
        'update',
        merchantId,
        '--default-scheme',
        'v1',
        '--beneficiary-verification',
        'required',
        '--min-name-match-score',
        '70',
        '--json',
      ),
      op('merchant', 'update', merchantId, '--min-name-match-score', '101'),
      op('merchant', 'update', merchantId, '--default-scheme', 'v3'),
    ]);
    expect(upd.code).toBe(0);
    expect(upd.json).toMatchObject({
      default_scheme: 'v1',
      beneficiary_verification: 'required',
      min_name_match_score: 70,
    });
    expect([badScore.code, badScheme.code]).toEqual([2, 2]);
    const back = await op(
      'merchant',
      'update',
      merchantId,
      '--default-scheme',
      'v2',
      '--beneficiary-verification',
      'off',
    );
    expect(back.code).toBe(0);
    expect(back.stdout).toMatch(/Default scheme:\s+v2/);
    expect(back.stdout).toMatch(/Beneficiary verification:\s+off/);
  });

  it('merchant show and update (limits, settings, status)', async () => {
    const [upd, ...usage] = await Promise.all([
      op('merchant', 'update', merchantId, '--daily-limit', '5000', '--monthly-limit', 'none', '--json'),
      // Nothing to change, or a bad value: usage errors.
      op('merchant', 'update', merchantId),
      op('merchant', 'update', merchantId, '--status', 'gone'),
    ]);
    expect(upd.code).toBe(0);
    expect(upd.json).toMatchObject({ daily_limit: '5000.00', monthly_limit: null });
    expect(usage.map((r) => r.code)).toEqual([2, 2]);
    const [show, suspended] = await Promise.all([
      op('merchant', 'show', merchantId),
      op('merchant', 'update', beta.id, '--status', 'suspended', '--json'),
    ]);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/Daily limit:\s+5000\.00/);
    expect(show.stdout).toMatch(/Default scheme:\s+v2/);
    expect(show.stdout).toContain(walletId);
    expect(suspended.json.status).toBe('suspended');
    // A suspended merchant gets no token.
    const refused = await cli(['balance', beta.walletId], {
      PAYRAIL_URL: t.url,
      PAYRAIL_API_KEY: beta.apiKey,
      PAYRAIL_SECRET_KEY: beta.secretKey,
    });
    expect(refused.code).toBe(3);
  });

  it('wallet create, credit (idempotent by reference) and show', async () => {
    const [created, credit, bad] = await Promise.all([
      op('wallet', 'create', merchantId, '--json'),
      op('wallet', 'credit', walletId, '1000.50', '--reference', 'bank-77', '--json'),
      op('wallet', 'credit', walletId, '10.001'),
    ]);
    expect(created.code).toBe(0);
    expect(created.json.wallet_id).toMatch(/^WL/);
    expect(credit.json).toMatchObject({ wallet_id: walletId, balance: '1000.50' });
    expect(bad.code).toBe(2);
    const [again, show] = await Promise.all([
      op('wallet', 'credit', walletId, '1000.50', '--reference', 'bank-77'),
      op('wallet', 'show', walletId, '--json'),
    ]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('already applied');
    expect(show.json).toMatchObject({ balance: '1000.50', on_hold: '0.00', merchant_id: merchantId });
    // Its virtual account (docs/merchant/funding-a-wallet.md), in the JSON and the table.
    expect(show.json.virtual_account).toMatchObject({
      number: expect.stringMatching(/^9988[0-9]{11}$/),
      ifsc: 'SBOX0VA0001',
    });
    const human = await op('wallet', 'show', walletId);
    expect(human.stdout).toMatch(/Virtual account:\s+9988[0-9]{11}/);
    expect(human.stdout).toMatch(/IFSC:\s+SBOX0VA0001/);
  });

  it(
    'wallet credit without --reference makes one up and prints it; a retry with it credits nothing more',
    { timeout: 120_000 },
    async () => {
      const before = Number((await op('wallet', 'show', walletId, '--json')).json.balance);
      const [human, json] = await Promise.all([
        op('wallet', 'credit', walletId, '5.00'),
        op('wallet', 'credit', walletId, '7.00', '--json'),
      ]);
      expect([human.code, json.code]).toEqual([0, 0]);
      // Printed before the request is sent, so that it is known even when no answer comes.
      const reference =
        /^Crediting with reference (cli-[0-9A-HJKMNP-TV-Z]{26}) \(generated\); to retry this credit safely, add --reference \1\.$/m.exec(
          human.stderr,
        )?.[1] as string;
      expect(reference).toBeDefined();
      expect(human.stdout).toContain(`Reference:  ${reference} (generated; repeat with --reference ${reference})`);
      expect(json.json).toMatchObject({
        wallet_id: walletId,
        reference: expect.stringMatching(/^cli-[0-9A-HJKMNP-TV-Z]{26}$/),
        reference_generated: true,
      });
      expect(json.json.reference).not.toBe(reference);
      // The retry the output advises is applied at most once.
      const retry = await op('wallet', 'credit', walletId, '5.00', '--reference', reference, '--json');
      expect(retry.code).toBe(0);
      expect(retry.json).toMatchObject({ duplicate: true, reference, reference_generated: false });
      const after = Number((await op('wallet', 'show', walletId, '--json')).json.balance);
      expect(after - before).toBeCloseTo(12, 2);

      // No answer (nothing listens): the error says how to retry without crediting twice; --json carries the reference.
      const down = { ...env, PAYRAIL_URL: 'http://127.0.0.1:9' };
      const [lost, lostJson] = await Promise.all([
        cli(['wallet', 'credit', walletId, '5.00'], down),
        cli(['wallet', 'credit', walletId, '5.00', '--json'], down),
      ]);
      expect([lost.code, lostJson.code]).toEqual([6, 6]);
      const lostRef = /reference (cli-\w+)/.exec(lost.stderr)?.[1] as string;
      expect(lost.stderr).toContain(
        `The credit may have been applied: run the same command with --reference ${lostRef} (never twice).`,
      );
      expect(lostJson.errJson.error).toMatchObject({
        type: 'NetworkError',
        reference: expect.stringMatching(/^cli-/),
        exitCode: 6,
      });
    },
  );

  it(
    'operator create takes a piped password without --password-stdin; an empty pipe is a usage error',
    { timeout: 120_000 },
    async () => {
      const password = 'a piped password of the operator';
      const [piped, flagged, empty] = await Promise.all([
        cli(['operator', 'create', 'piped@example.test', '--role', 'viewer', '--json'], env, {
          stdin: `${password}\n`,
        }),
        cli(['operator', 'create', 'flagged@example.test', '--role', 'viewer', '--password-stdin'], env, {
          stdin: password,
        }),
        cli(['operator', 'create', 'empty@example.test', '--role', 'viewer'], env, { stdin: '' }),
      ]);
      expect(piped.code).toBe(0);
      expect(piped.json).toMatchObject({ email: 'piped@example.test', role: 'viewer' });
      expect(flagged.code).toBe(0);
      expect(empty.code).toBe(2);
      expect(empty.stderr).toContain('no password on standard input');
      // The password is the piped text without its line break: both operators sign in with it.
      for (const email of ['piped@example.test', 'flagged@example.test']) {
        await expect(ConsoleSession.signIn(t.url, email, password)).resolves.toBeInstanceOf(ConsoleSession);
      }
    },
  );

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
    const c = await payrail.collections.initiate({ senderId: 'op-col-1', amount: '5.00' });
    const [list, table, show, cols] = await Promise.all([
      op('payouts', 'list', '--merchant', merchantId, '--status', 'PENDING', '--json'),
      op('payouts', 'list', '--merchant', merchantId),
      op('payouts', 'show', pending.transactionId, '--json'),
      op('collections', 'list', '--merchant', merchantId, '--json'),
    ]);
    expect(list.code).toBe(0);
    expect(list.json.data.map((p: { transaction_id: string }) => p.transaction_id)).toEqual([pending.transactionId]);
    expect(table.stdout.split('\n')[0]).toMatch(/^TRANSACTION ID\s+SENDER ID\s+MERCHANT\s+AMOUNT\s+FEES\s+GST\s+MODE/);
    expect(table.stdout).toContain('op-pending-1');
    // No pricing plan: nothing charged, and the views say so.
    expect(show.json).toMatchObject({ amount: '10.00', fees: '0.00', tax: '0.00' });
    expect((await op('payouts', 'show', pending.transactionId)).stdout).toMatch(/Fees:\s+0\.00\nGST on fees:\s+0\.00/);
    expect(show.json.status).toBe('PENDING');
    expect(cols.code).toBe(0);
    expect(cols.json.data[0]).toMatchObject({ txnId: c.txnId, senderId: 'op-col-1' });
    const resolved = await op('payouts', 'resolve', pending.transactionId, 'success', '--utr', 'UTR42', '--json');
    expect(resolved.code).toBe(0);
    expect(resolved.json).toMatchObject({ status: 'SUCCESS', utr_number: 'UTR42' });
    // Only a PENDING payout can be resolved: a conflict is a refusal (exit 4).
    expect((await op('payouts', 'resolve', pending.transactionId, 'FAILED')).code).toBe(4);
  });

  // Several CLIs in two rounds: allow for a busy machine.
  it(
    'payouts return: a SUCCESS payout becomes REFUNDED once, with the reason; others are refused',
    { timeout: 120_000 },
    async () => {
      const payrail = new Payrail({ baseUrl: t.url, apiKey: creds.api_key, secretKey: creds.secret_key });
      const [p, pending] = await Promise.all(
        [
          ['op-return-1', '100000000001'],
          ['op-return-2', '100000000003'],
        ].map(([senderId, accountNumber]) =>
          payrail.payouts.initiate({
            senderId: senderId as string,
            walletId,
            paymentMode: 'IMPS',
            amount: '2.00',
            beneficiary: { name: 'Asha Rao', accountNumber: accountNumber as string, ifsc: 'SBOX0000001' },
          }),
        ),
      );
      const [done] = await Promise.all([
        payrail.payouts.waitFor({ transactionId: p!.transactionId }, { intervalMs: 20 }),
        payrail.payouts.waitFor({ transactionId: pending!.transactionId }, { until: 'PENDING', intervalMs: 20 }),
      ]);
      expect(done.status).toBe('SUCCESS');
      const balance = async () => (await payrail.wallets.balance(walletId)).balance;
      const before = await balance();
      const [missing, returned] = await Promise.all([
        op('payouts', 'return', p!.transactionId),
        op('payouts', 'return', p!.transactionId, '--reason', 'Beneficiary account closed', '--json'),
      ]);
      expect(missing.code).toBe(2);
      expect(returned.code).toBe(0);
      expect(returned.json).toMatchObject({
        status: 'REFUNDED',
        utr_number: done.utr,
        status_message: 'Returned by the beneficiary bank: Beneficiary account closed',
        return_reason: 'Beneficiary account closed',
      });
      // Again: answered as it is (exit 0), the money came back once. Only a SUCCESS payout can be returned: a
      // conflict is a refusal (exit 4); an unknown payout exits 5.
      const [again, refused, unknown] = await Promise.all([
        op('payouts', 'return', p!.transactionId, '--reason', 'Second report'),
        op('payouts', 'return', pending!.transactionId, '--reason', 'x'),
        op('payouts', 'return', 'PT01JD3K8Q5W2V7X9Y0Z1A2B3C4D', '--reason', 'x'),
      ]);
      expect(again.code).toBe(0);
      expect(again.stdout).toMatch(/Returned:\s+\S+: Beneficiary account closed/);
      expect([refused.code, unknown.code]).toEqual([4, 5]);
      expect(Number(await balance()) - Number(before)).toBeCloseTo(2, 2);
    },
  );

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
    // Both events (processing, success) are queued by the time the payout is final.
    await eventually(async () => {
      const r = await admin(t.url, 'GET', `/admin/v1/webhooks/deliveries?subject_id=${p.transactionId}`);
      return (r.body.data as unknown[]).length >= 2;
    }, 20_000);
    const [deliveries, human] = await Promise.all([
      op('webhooks', 'deliveries', '--subject', p.transactionId, '--json'),
      op('webhooks', 'deliveries', '--merchant', merchantId),
    ]);
    expect(deliveries.code).toBe(0);
    const ids = deliveries.json.data.map((d: { id: string }) => d.id) as string[];
    expect(ids.length).toBeGreaterThanOrEqual(2);
    expect(deliveries.json.data[0]).toHaveProperty('attempts');
    expect(human.stdout).toMatch(/^DELIVERY ID\s+TYPE/);
    const [replay, unknown] = await Promise.all([
      op('webhooks', 'replay', ids[0] as string, '--json'),
      op('webhooks', 'replay', 'EV01JD3K8Q5W2V7X9Y0Z1A2B3C4D'),
    ]);
    expect(replay.code).toBe(0);
    expect(replay.json).toMatchObject({ id: ids[0], state: 'pending' });
    expect(unknown.code).toBe(5);
  });

  it('payouts list pages with --limit/--cursor and follows every page with --all', async () => {
    const first = await op('payouts', 'list', '--limit', '1', '--json');
    expect(first.json.data).toHaveLength(1);
    expect(first.json.has_more).toBe(true);
    const [second, all] = await Promise.all([
      op('payouts', 'list', '--limit', '1', '--cursor', first.json.next_cursor, '--json'),
      op('payouts', 'list', '--limit', '1', '--all', '--json'),
    ]);
    expect(second.json.data[0].transaction_id).not.toBe(first.json.data[0].transaction_id);
    expect(all.json.data.length).toBeGreaterThanOrEqual(2);
    expect(all.json.has_more).toBe(false);
  });

  it('ledger verify', async () => {
    const [r, human] = await Promise.all([op('ledger', 'verify', '--json'), op('ledger', 'verify')]);
    expect(r.code).toBe(0);
    expect(r.json.ok).toBe(true);
    expect(r.json.wallets_checked).toBeGreaterThan(0);
    expect(human.stdout).toMatch(/^Ledger OK: \d+ wallet\(s\) checked \(4 of the platform\)/);
    // A balance moved outside the ledger is a mismatch: exit 7.
    await t.db.query('UPDATE wallets SET balance = balance + 1 WHERE id = $1', [walletId]);
    try {
      const bad = await op('ledger', 'verify', '--json');
      expect(bad.code).toBe(7);
      expect(bad.json.ok).toBe(false);
      expect(JSON.stringify(bad.json.mismatches)).toContain(walletId);
      const full = await op('ledger', 'verify', '--full', '--json');
      expect(full.code).toBe(7);
      expect(full.json).toEqual(bad.json);
    } finally {
      await t.db.query('UPDATE wallets SET balance = balance - 1 WHERE id = $1', [walletId]);
    }
  });

  it('merchant rotate-credentials: the old keys stop working, the new ones work', async () => {
    const m = await createMerchant(t.url, 'Rotating', '10.00');
    const rotated = await op('merchant', 'rotate-credentials', m.merchant_id, '--json');
    expect(rotated.code).toBe(0);
    expect(rotated.json.merchant_id).toBe(m.merchant_id);
    expect(rotated.json.api_key).not.toBe(m.api_key);
    const [oldKeys, newKeys] = await Promise.all([
      cli(['balance', m.wallet_id], {
        PAYRAIL_URL: t.url,
        PAYRAIL_API_KEY: m.api_key,
        PAYRAIL_SECRET_KEY: m.secret_key,
      }),
      cli(['balance', m.wallet_id, '--json'], {
        PAYRAIL_URL: t.url,
        PAYRAIL_API_KEY: rotated.json.api_key,
        PAYRAIL_SECRET_KEY: rotated.json.secret_key,
      }),
    ]);
    expect(oldKeys.code).toBe(3);
    expect(newKeys.code).toBe(0);
    expect(newKeys.json.balance).toBe('10.00');
  });

  it('exit codes: bad admin token 3, unknown merchant 5', async () => {
    const [bad, missing] = await Promise.all([
      cli(['merchant', 'show', merchantId, '--json'], { ...env, PAYRAIL_ADMIN_TOKEN: 'wrong' }),
      op('merchant', 'show', 'MR01JD3K8Q5W2V7X9Y0Z1A2B3C4D'),
    ]);
    expect(bad.code).toBe(3);
    expect(bad.errJson.error).toMatchObject({ type: 'AuthenticationError', httpStatus: 401 });
    expect(missing.code).toBe(5);
    expect(missing.stderr).toMatch(/^payrail: merchant not found/);
  });
});

// Each test spawns several CLIs at once: allow for a busy machine.
describe('admin token precedence and merchant list', { timeout: 120_000 }, () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'payrail-token-'));
    await mkdir(join(dir, 'data'));
    // A stale token left by an earlier local server.
    await writeFile(join(dir, 'data', 'admin-token'), 'stale-token\n');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('--admin-token beats PAYRAIL_ADMIN_TOKEN beats <data dir>/admin-token; a refusal names the source used', async () => {
    const url = { PAYRAIL_URL: t.url };
    const list = ['merchant', 'list', '--json'];
    const [file, dataDir, envWins, flagWins, badEnv, badFlag, none] = await Promise.all([
      cli(list, url, { cwd: dir }),
      cli(list, { ...url, PAYRAIL_DATA_DIR: join(dir, 'data') }),
      cli(list, { ...url, PAYRAIL_ADMIN_TOKEN: TEST_ADMIN_TOKEN }, { cwd: dir }),
      cli([...list, '--admin-token', TEST_ADMIN_TOKEN], { ...url, PAYRAIL_ADMIN_TOKEN: 'wrong' }, { cwd: dir }),
      cli(list, { ...url, PAYRAIL_ADMIN_TOKEN: 'wrong' }, { cwd: dir }),
      cli([...list, '--admin-token', 'wrong'], { ...url, PAYRAIL_ADMIN_TOKEN: TEST_ADMIN_TOKEN }),
      cli(list, url, { cwd: tmpdir() }),
    ]);
    expect([envWins.code, flagWins.code]).toEqual([0, 0]);
    expect(envWins.json).toMatchObject({ data: expect.any(Array), has_more: expect.any(Boolean) });
    const refused = (source: string) => `admin token from ${source} was refused by ${t.url}; `;
    for (const [r, source] of [
      [file, './data/admin-token'],
      [dataDir, join(dir, 'data', 'admin-token')],
      [badEnv, 'PAYRAIL_ADMIN_TOKEN'],
      [badFlag, '--admin-token'],
    ] as const) {
      expect(r.code).toBe(3);
      // --json: the error is JSON on stderr, and stdout (redirected to a file by scripts) stays empty.
      expect(r.stdout).toBe('');
      expect(r.errJson.error.type).toBe('AuthenticationError');
      expect(r.errJson.error.message).toContain(refused(source));
    }
    expect(file.errJson.error.message).toContain('pass --admin-token or set PAYRAIL_ADMIN_TOKEN');
    // What to do depends on where the refused token came from.
    expect(file.errJson.error.message).toContain(
      'that file holds the token a server generated when started from this folder without PAYRAIL_ADMIN_TOKEN',
    );
    expect(badEnv.errJson.error.message).toContain(
      'set PAYRAIL_ADMIN_TOKEN to the token that server was started with, or pass --admin-token',
    );
    expect(badFlag.errJson.error.message).toContain('check the value of --admin-token');
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.errJson.error.message).toMatch(/admin token missing: pass --admin-token or set PAYRAIL_ADMIN_TOKEN/);
  });

  it('merchant list: search, status, paging, table and JSON', async () => {
    const made = await Promise.all(
      ['Zeta Spices', 'zeta logistics', 'Omega Mills'].map((n) => op('merchant', 'create', n, '--json')),
    );
    const [zetaId, , omegaId] = made.map((r) => r.json.merchant_id as string);
    await op('merchant', 'update', omegaId as string, '--status', 'suspended');
    const [search, byId, suspended, page, human] = await Promise.all([
      op('merchant', 'list', '-q', 'ZETA', '--json'),
      op('merchant', 'list', '--search', zetaId as string, '--json'),
      op('merchant', 'list', '--status', 'suspended', '--json'),
      op('merchant', 'list', '-q', 'zeta', '--limit', '1', '--json'),
      op('merchant', 'list', '-q', 'Omega'),
    ]);
    expect(search.json.data.map((m: { name: string }) => m.name).sort()).toEqual(['Zeta Spices', 'zeta logistics']);
    expect(search.json.data[0]).not.toHaveProperty('secret_key');
    expect(byId.json.data.map((m: { merchant_id: string }) => m.merchant_id)).toEqual([zetaId]);
    expect(suspended.json.data.map((m: { merchant_id: string }) => m.merchant_id)).toContain(omegaId);
    expect(page.json).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
    const next = await op(
      'merchant',
      'list',
      '-q',
      'zeta',
      '--limit',
      '1',
      '--cursor',
      page.json.next_cursor,
      '--json',
    );
    expect(next.json.data).toHaveLength(1);
    expect(next.json.data[0].merchant_id).not.toBe(page.json.data[0].merchant_id);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^MERCHANT\s+NAME\s+STATUS\s+WALLETS\s+CREATED/);
    expect(human.stdout).toMatch(new RegExp(`${omegaId}\\s+Omega Mills\\s+suspended\\s+1`));
  });
});
