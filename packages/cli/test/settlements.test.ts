import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initiateOk, party, simulate, type Party } from '../../server/test/support/collectionFixtures.ts';
import { SANDBOX } from '../../server/test/support/payoutFixtures.ts';
import { eventually, WebhookReceiver, type ReceivedWebhook } from '../../server/test/support/webhookReceiver.ts';
import { admin, cli, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from './support.ts';

/** Each test runs the CLI a dozen times or more (a process each) on a machine shared with other test files. */
const SLOW = 180_000;

/** UPI collections cost ₹2.00 + 18% GST (₹0.36): a ₹100.00 collection nets ₹97.64. */
const PLAN = { name: 'Collect', rules: { UPI_COLLECTION: { slabs: [{ flat: '2.00' }] } } };

let t: TestServer;
let dir: string;
let opEnv: Record<string, string>;
const op = (...args: string[]) => cli(args, opEnv);
const as =
  (p: Party) =>
  (...args: string[]) =>
    cli(args, {
      PAYRAIL_URL: t.url,
      PAYRAIL_API_KEY: p.merchant.api_key,
      PAYRAIL_SECRET_KEY: p.merchant.secret_key,
    });

beforeAll(async () => {
  [t, dir] = await Promise.all([
    // The scheduler stays out of the way: `payrail settlements run` runs the pass.
    startTestServer('pglite', { env: { PAYRAIL_SANDBOX_STEP_MS: '30', PAYRAIL_SETTLEMENT_SCAN_MS: '3600000' } }),
    mkdtemp(join(tmpdir(), 'payrail-settlements-cli-')),
  ]);
  opEnv = { PAYRAIL_URL: t.url, PAYRAIL_ADMIN_TOKEN: TEST_ADMIN_TOKEN };
}, 60_000);

afterAll(async () => {
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function collector(name: string): Promise<Party> {
  const p = await party(t.url, 'v2', name);
  expect((await admin(t.url, 'PUT', `/admin/v1/merchants/${p.merchant.merchant_id}/pricing`, PLAN)).status).toBe(200);
  return p;
}

async function collect(p: Party, amount: string): Promise<string> {
  const c = await initiateOk(p.client, { amount });
  expect((await simulate(p.client, c.txnId, 'SUCCESS')).body.respCode).toBe(2000);
  return c.txnId;
}

const accountArgs = (p: Party, ...more: string[]) => [
  'settlements',
  'account',
  'set',
  p.merchant.merchant_id,
  '--account',
  SANDBOX.success,
  '--ifsc',
  SANDBOX.ifsc,
  '--holder',
  'Collector Pvt Ltd',
  ...more,
];

describe('payrail settlements account (operator)', () => {
  it(
    'sets and shows the account and schedule; refuses inconsistent options before any request',
    async () => {
      const p = await collector('Account CLI');
      const none = await op('settlements', 'account', 'show', p.merchant.merchant_id, '--json');
      expect(none.code, none.stderr).toBe(5);

      for (const args of [
        accountArgs(p, '--at', '11:00'),
        accountArgs(p, '--schedule', 'daily', '--at', '25:00'),
        accountArgs(p, '--reserve-percent', '100.5', '--reserve-days', '7'),
        accountArgs(p, '--schedule', 'weekly'),
      ]) {
        const r = await op(...args);
        expect({ args, code: r.code }).toEqual({ args, code: 2 });
      }

      // A daily schedule runs at 11:00 IST and a reserve holds 7 days unless told otherwise.
      const set = await op(...accountArgs(p, '--schedule', 'daily', '--reserve-percent', '10'));
      expect(set.code, set.stderr).toBe(0);
      expect(set.stdout).toMatch(/Schedule:\s+daily at 11:00 IST/);
      expect(set.stdout).toMatch(/Reserve:\s+10\.00% for 7 days/);
      expect(set.stdout).toMatch(/Account:\s+100000000001/);
      const changed = await op(
        ...accountArgs(p, '--schedule', 'daily', '--at', '09:30', '--reserve-percent', '2.5', '--reserve-days', '3'),
      );
      expect(changed.stdout).toMatch(/Schedule:\s+daily at 09:30 IST/);
      expect(changed.stdout).toMatch(/Reserve:\s+2\.50% for 3 days/);

      const shown = await op('settlements', 'account', 'show', p.merchant.merchant_id, '--json');
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.json).toMatchObject({
        merchant_id: p.merchant.merchant_id,
        account_number: SANDBOX.success,
        ifsc: SANDBOX.ifsc,
        holder_name: 'Collector Pvt Ltd',
        schedule: 'daily',
        at: '09:30',
        reserve_percent: '2.50',
        reserve_days: 3,
      });
    },
    SLOW,
  );
});

describe('payrail settlement (merchant) and payrail settlements (operator)', () => {
  let p: Party;
  let settlementId: string;
  let c1: string;

  beforeAll(async () => {
    p = await collector('Settlement CLI');
    c1 = await collect(p, '100.00');
  });

  it(
    'refuses without an account (exit 4, 4016), then settles, shows and lists the settlement',
    async () => {
      const merchant = as(p);
      const refused = await merchant('settlement', 'initiate', '--wallet', p.merchant.wallet_id, '--json');
      expect(refused.code).toBe(4);
      expect(refused.errJson.error).toMatchObject({ type: 'NoSettlementAccountError', code: 4016, exitCode: 4 });
      expect((await merchant('settlement', 'initiate')).code).toBe(2); // no --wallet, no PAYRAIL_WALLET_ID

      expect((await op(...accountArgs(p))).code).toBe(0);
      const settled = await merchant('settlement', 'initiate', '--wallet', p.merchant.wallet_id, '--wait', '--json');
      expect(settled.code, settled.stderr).toBe(0);
      expect(settled.json).toMatchObject({
        walletId: p.merchant.wallet_id,
        amount: '97.64',
        fees: '2.00',
        tax: '0.36',
        status: 'SUCCESS',
        trigger: 'manual',
        collectionCount: 1,
        collections: [{ collectionId: c1, amount: '100.00', fee: '2.00', tax: '0.36', net: '97.64' }],
      });
      settlementId = settled.json.settlementId;
      expect(settlementId).toMatch(/^ST[0-9A-Z]{26}$/);

      const status = await merchant('settlement', 'status', settlementId);
      expect(status.code, status.stderr).toBe(0);
      expect(status.stdout).toMatch(new RegExp(`Settlement ID:\\s+${settlementId}`));
      expect(status.stdout).toMatch(/Status:\s+SUCCESS/);
      expect(status.stdout).toMatch(new RegExp(`^${c1}\\s+100\\.00\\s+2\\.00\\s+0\\.36\\s+97\\.64$`, 'm'));

      const history = await merchant('settlement', 'history', '--json');
      expect(history.code, history.stderr).toBe(0);
      expect(history.json).toMatchObject([{ settlementId, amount: '97.64', collections: [{ collectionId: c1 }] }]);
      const table = await merchant('settlement', 'history');
      expect(table.stdout.split('\n')[0]).toMatch(/^SETTLEMENT\s+CREATED\s+STATUS\s+AMOUNT\s+FEES\s+GST\s+COLLECTIONS/);
      expect(table.stdout).toContain(settlementId);
      // Not a day: a usage error; a day that does not exist: the server's 4017 (exit 4).
      expect((await merchant('settlement', 'history', '--from', 'yesterday')).code).toBe(2);
      const badDay = await merchant('settlement', 'history', '--from', '2026-13-01', '--json');
      expect([badDay.code, badDay.errJson.error.code]).toEqual([4, 4017]);

      const nothing = await merchant('settlement', 'initiate', '--wallet', p.merchant.wallet_id, '--json');
      expect(nothing.code).toBe(4);
      expect(nothing.errJson.error).toMatchObject({ type: 'NothingToSettleError', code: 4002 });
    },
    SLOW,
  );

  it(
    'never shows a merchant another merchant’s settlement (exit 5, 4107)',
    async () => {
      const other = await collector('Other CLI');
      const r = await as(other)('settlement', 'status', settlementId, '--json');
      expect(r.code).toBe(5);
      expect(r.errJson.error).toMatchObject({ type: 'NotFoundError', code: 4107, httpStatus: 403 });
      expect((await as(other)('settlement', 'history', '--json')).json).toEqual([]);
    },
    SLOW,
  );

  it(
    'lists, shows and reports settlements for operators',
    async () => {
      const list = await op('settlements', 'list', '--merchant', p.merchant.merchant_id, '--json');
      expect(list.code, list.stderr).toBe(0);
      expect(list.json.data.map((s: { settlement_id: string }) => s.settlement_id)).toEqual([settlementId]);
      const byWallet = await op('settlements', 'list', '--wallet', p.merchant.wallet_id);
      expect(byWallet.stdout.split('\n')[0]).toMatch(/^SETTLEMENT\s+MERCHANT\s+WALLET\s+STATE\s+AMOUNT/);
      expect(byWallet.stdout).toMatch(
        new RegExp(`^${settlementId}\\s+${p.merchant.merchant_id}\\s+\\S+\\s+SUCCESS\\s+97\\.64`, 'm'),
      );
      const none = await op(
        'settlements',
        'list',
        '--merchant',
        p.merchant.merchant_id,
        '--from',
        '2020-01-01',
        '--to',
        '2020-01-31',
      );
      expect(none.stdout.trim()).toBe('No settlements.');

      const shown = await op('settlements', 'show', settlementId);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toMatch(/State:\s+SUCCESS/);
      expect(shown.stdout).toMatch(new RegExp(`^${c1}\\s+100\\.00\\s+2\\.00\\s+0\\.36\\s+97\\.64$`, 'm'));
      expect((await op('settlements', 'show', 'ST00000000000000000000000000')).code).toBe(5);

      const report = await op('settlements', 'report', settlementId);
      expect(report.code, report.stderr).toBe(0);
      expect(report.stdout.split('\r\n')).toEqual([
        'settlement_id,collection_id,amount,fee,gst,net',
        `${settlementId},${c1},100.00,2.00,0.36,97.64`,
        '',
      ]);
      const file = join(dir, 'report.csv');
      const written = await op('settlements', 'report', settlementId, '--out', file);
      expect(written.code, written.stderr).toBe(0);
      expect(written.stdout).toContain('(1 collection)');
      expect(await readFile(file, 'utf8')).toBe(report.stdout);
    },
    SLOW,
  );

  it(
    'settles for the merchant and runs the scheduled pass',
    async () => {
      const c2 = await collect(p, '50.00');
      const created = await op(
        'settlements',
        'initiate',
        '--wallet',
        p.merchant.wallet_id,
        '--amount',
        '10.00',
        '--json',
      );
      expect(created.code, created.stderr).toBe(0);
      expect(created.json).toMatchObject({ amount: '10.00', trigger: 'manual', collections: [{ collection_id: c2 }] });
      const tooMuch = await op(
        'settlements',
        'initiate',
        '--wallet',
        p.merchant.wallet_id,
        '--amount',
        '1000',
        '--json',
      );
      expect(tooMuch.code).toBe(4);
      expect(tooMuch.errJson.error).toMatchObject({ code: 'nothing_to_settle' });

      const instant = await collector('Instant CLI');
      expect((await op(...accountArgs(instant, '--schedule', 'instant'))).code).toBe(0);
      const c3 = await collect(instant, '20.00');
      const run = await op('settlements', 'run', '--json');
      expect(run.code, run.stderr).toBe(0);
      const mine = run.json.settlements.filter(
        (s: { merchant_id: string }) => s.merchant_id === instant.merchant.merchant_id,
      );
      expect(mine).toMatchObject([{ trigger: 'instant', amount: '17.64', collection_count: 1 }]);
      const shown = await op('settlements', 'show', mine[0].settlement_id, '--json');
      expect(shown.json.collections).toMatchObject([{ collection_id: c3 }]);
      const again = await op('settlements', 'run');
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toMatch(/Opened \d+ settlements?\./);
    },
    SLOW,
  );
});

describe('payrail webhook verify', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
  });
  afterAll(() => receiver?.stop());

  it(
    'shows a settlement event of a saved delivery',
    async () => {
      const p = await collector('Hooked CLI');
      const patched = await admin(t.url, 'PATCH', `/admin/v1/merchants/${p.merchant.merchant_id}`, {
        collection_callback_url: `${receiver.url}/settlements`,
      });
      expect(patched.status).toBe(200);
      expect((await op(...accountArgs(p))).code).toBe(0);
      await collect(p, '20.00');
      const created = await op('settlements', 'initiate', '--wallet', p.merchant.wallet_id, '--json');
      expect(created.code, created.stderr).toBe(0);
      const hook = (await eventually(
        () => receiver.at('/settlements').find((h) => h.body.includes('"settlement.success"')),
        20_000,
      )) as ReceivedWebhook;
      const file = join(dir, 'settlement-delivery.json');
      await writeFile(file, JSON.stringify({ headers: hook.headers, body: hook.body }));
      const env = {
        PAYRAIL_URL: t.url,
        PAYRAIL_API_KEY: p.merchant.api_key,
        PAYRAIL_SECRET_KEY: p.merchant.secret_key,
        PAYRAIL_WEBHOOK_SECRET: p.merchant.webhook_secret,
      };
      const [json, text] = await Promise.all([
        cli(['webhook', 'verify', file, '--json'], env),
        cli(['webhook', 'verify', file], env),
      ]);
      expect(json.code, json.stderr).toBe(0);
      expect(json.json).toMatchObject({
        type: 'settlement.success',
        kind: 'settlement',
        data: { settlementId: created.json.settlement_id, amount: '17.64', status: 'SUCCESS', collections: null },
      });
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).toMatch(/Verdict:\s+genuine/);
      expect(text.stdout).toMatch(new RegExp(`Settlement ID:\\s+${created.json.settlement_id as string}`));
    },
    SLOW,
  );
});
