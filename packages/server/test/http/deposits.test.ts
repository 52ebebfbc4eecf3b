import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPspNotification } from '../../src/domain/pspSignature.ts';
import { parseVirtualAccount, virtualAccountNumber } from '../../src/domain/virtualAccount.ts';
import { ConsoleSession } from '../support/consoleClient.ts';
import { admin, createMerchant, http, type HttpResult } from '../support/merchantClient.ts';
import { expectLedgerOk, walletBalance } from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

const SECRET = `psp_${randomBytes(24).toString('hex')}`;
const now = () => Math.floor(Date.now() / 1000);
type Row = Record<string, unknown>;
const utr = () => `UTR${randomBytes(6).toString('hex').toUpperCase()}`;

/** Luhn by its definition, independent of the server's. */
const luhnValid = (n: string) =>
  [...n].reverse().reduce((sum, c, i) => {
    const d = Number(c) * (i % 2 === 1 ? 2 : 1);
    return sum + (d > 9 ? d - 9 : d);
  }, 0) %
    10 ===
  0;

describe.each(ENGINES)('virtual accounts and deposits on %s', (engine) => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer(engine, { env: { PAYRAIL_PSP_NOTIFY_SECRET: SECRET } });
  });
  afterAll(async () => {
    await t.close();
  });

  const notify = (body: unknown): Promise<HttpResult> => {
    const raw = JSON.stringify(body);
    return http(t.url, 'POST', '/psp/v1/deposits/notify', {
      rawBody: raw,
      headers: { 'content-type': 'application/json', 'payrail-signature': signPspNotification(SECRET, raw, now()) },
    });
  };
  const sandbox = (body: unknown) => admin(t.url, 'POST', '/admin/v1/sandbox/deposits', body);
  const vaOf = async (walletId: string) => {
    const res = await admin(t.url, 'GET', `/admin/v1/wallets/${walletId}`);
    expect(res.status).toBe(200);
    return res.body.virtual_account as { number: string; ifsc: string };
  };
  const deposits = async (u: string) => (await t.db.query<Row>('SELECT * FROM deposits WHERE utr = $1', [u])).rows;
  const platform = async () => {
    const { rows } = await t.db.query<{ id: string; balance: bigint }>(
      "SELECT id, balance FROM platform_wallet_balances WHERE id IN ('PW_FEES', 'PW_GST') ORDER BY id",
    );
    return rows.map((r) => String(r.balance));
  };

  it('gives every wallet a unique virtual account with a valid check digit, shown in the admin views', async () => {
    const a = await createMerchant(t.url, 'VA one');
    const b = await createMerchant(t.url, 'VA two');
    const second = await admin(t.url, 'POST', `/admin/v1/merchants/${a.merchant_id}/wallets`);
    expect(second.status).toBe(201);
    const numbers: string[] = [];
    for (const w of [a.wallet_id, b.wallet_id, second.body.wallet_id as string]) {
      const va = await vaOf(w);
      expect(va.ifsc).toBe('SBOX0VA0001');
      expect(va.number).toMatch(/^9988[0-9]{11}$/);
      expect(luhnValid(va.number)).toBe(true);
      numbers.push(va.number);
    }
    expect(new Set(numbers).size).toBe(3);
    const view = await admin(t.url, 'GET', `/admin/v1/merchants/${a.merchant_id}`);
    const wallets = view.body.wallets as { wallet_id: string; virtual_account: { number: string } }[];
    expect(wallets.map((w) => w.virtual_account.number).sort()).toEqual([numbers[0], numbers[2]].sort());
    // The merchant's console: "Add money" with the account, IFSC and name.
    const shop = await ConsoleSession.merchant(t.url, a.api_key, a.secret_key);
    const overview = await shop.request('GET', '/console/api/merchant/overview');
    expect(overview.status).toBe(200);
    expect((overview.body.wallets as Row[]).find((w) => w.wallet_id === a.wallet_id)?.virtual_account).toEqual({
      number: numbers[0],
      ifsc: 'SBOX0VA0001',
      name: 'VA one',
    });
  });

  it('credits a deposit once per UTR, whether it arrives by the PSP webhook or the sandbox route', async () => {
    const m = await createMerchant(t.url, 'Deposit once');
    const va = await vaOf(m.wallet_id);
    const u = utr();
    const body = {
      virtual_account: va.number,
      amount: '2500.00',
      utr: u,
      remitter_name: 'Asha Traders',
      remitter_account: '50100012345678',
      remitter_ifsc: 'hdfc0000123',
      credited_at: '2026-11-28T10:15:00+05:30',
    };
    const first = await notify(body);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ result: 'credited', wallet_id: m.wallet_id });
    const again = await sandbox({ ...body, credited_at: undefined });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      deposit_id: first.body.deposit_id,
      amount: '2500.00',
      fees: '0.00',
      tax: '0.00',
      remitter_ifsc: 'HDFC0000123',
      source: 'psp_notify',
      duplicate: true,
      credited_at: '2026-11-28T04:45:00.000Z',
    });
    expect((await notify(body)).body).toMatchObject({ result: 'unchanged', deposit_id: first.body.deposit_id });
    expect(await walletBalance(t.url, m.merchant_id, m.wallet_id)).toBe('2500.00');
    expect(await deposits(u)).toHaveLength(1);
    const { rows } = await t.db.query<{ kind: string; amount: bigint }>(
      'SELECT e.kind, e.amount FROM ledger_entries e JOIN deposits d ON d.id = e.deposit_id WHERE d.utr = $1',
      [u],
    );
    expect(rows.map((r) => `${r.kind}:${String(r.amount)}`)).toEqual(['deposit:250000']);
    await expectLedgerOk(t.url);
  });

  it('prices a deposit by the DEPOSIT rule in the statement that credits it, and tells the merchant', async () => {
    const m = await createMerchant(t.url, 'Priced deposits');
    const plan = {
      name: 'Deposits',
      rules: {
        DEPOSIT: {
          slabs: [
            { up_to: '100.00', flat: '1.00' },
            { bps: 100, max: '50.00' },
          ],
        },
      },
    };
    expect((await admin(t.url, 'PUT', `/admin/v1/merchants/${m.merchant_id}/pricing`, plan)).status).toBe(200);
    const patched = await admin(t.url, 'PATCH', `/admin/v1/merchants/${m.merchant_id}`, {
      collection_callback_url: 'http://127.0.0.1:9/deposits',
    });
    expect(patched.status).toBe(200);
    const va = await vaOf(m.wallet_id);
    const [fees0, gst0] = await platform();
    const res = await sandbox({ virtual_account: va.number, amount: '1000.00', utr: utr() });
    expect(res.status).toBe(200);
    // 1 % of 1,000.00 = 10.00, GST 18 % = 1.80.
    expect(res.body).toMatchObject({
      amount: '1000.00',
      fees: '10.00',
      tax: '1.80',
      source: 'sandbox',
      duplicate: false,
    });
    expect(await walletBalance(t.url, m.merchant_id, m.wallet_id)).toBe('988.20');
    const small = await sandbox({ virtual_account: va.number, amount: '0.50', utr: utr() });
    // A flat 1.00 on 0.50: lowered so that fee + GST fits what was deposited (0.42 + 0.08).
    expect(small.body).toMatchObject({ fees: '0.42', tax: '0.08' });
    expect(await walletBalance(t.url, m.merchant_id, m.wallet_id)).toBe('988.20');
    const [fees1, gst1] = await platform();
    expect(BigInt(fees1 as string) - BigInt(fees0 as string)).toBe(1042n);
    expect(BigInt(gst1 as string) - BigInt(gst0 as string)).toBe(188n);
    const { rows } = await t.db.query<Row>(
      "SELECT subject_id, type FROM webhook_deliveries WHERE merchant_id = $1 AND type = 'deposit.credited'",
      [m.merchant_id],
    );
    expect(rows.map((r) => r.subject_id).sort()).toEqual([res.body.deposit_id, small.body.deposit_id].sort());
    // The platform's fee report counts deposit fees under DEPOSIT, for this merchant.
    const report = await admin(t.url, 'GET', `/admin/v1/platform/fees?group=product&merchant_id=${m.merchant_id}`);
    expect(report.status, JSON.stringify(report.body)).toBe(200);
    expect(report.body.rows).toEqual([{ key: 'DEPOSIT', count: 2, fees: '10.42', tax: '1.88' }]);
    await expectLedgerOk(t.url);
  });

  it('records a deposit to an unknown number as an exception, credits nothing, and assign_to_wallet credits it once', async () => {
    const m = await createMerchant(t.url, 'Unknown VA');
    const plan = { name: 'Deposits', rules: { DEPOSIT: { slabs: [{ flat: '2.00' }] } } };
    expect((await admin(t.url, 'PUT', `/admin/v1/merchants/${m.merchant_id}/pricing`, plan)).status).toBe(200);
    const va = await vaOf(m.wallet_id);
    // One digit mistyped: the check digit fails.
    const typo = va.number.slice(0, 8) + String((Number(va.number[8]) + 1) % 10) + va.number.slice(9);
    expect(parseVirtualAccount('9988', typo)).toBeNull();
    const u = utr();
    const body = { virtual_account: typo, amount: '700.00', utr: u, remitter_name: 'R', remitter_account: '123456' };
    const refused = await notify(body);
    expect(refused.status).toBe(200);
    expect(refused.body).toMatchObject({ result: 'refused' });
    const exceptionId = refused.body.exception_id as string;
    const again = await sandbox(body);
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({
      exception_id: exceptionId,
      kind: 'unknown_virtual_account',
      state: 'open',
      amount: '700.00',
      allowed_actions: ['assign_to_wallet', 'return_to_sender', 'dismiss'],
      reported: { virtual_account: typo, amount: '700.00', utr: u },
    });
    // A well-formed number that names no wallet is unknown too.
    const nobody = await sandbox({
      virtual_account: virtualAccountNumber('9988', 9_999_999_999n),
      amount: '1.00',
      utr: utr(),
    });
    expect(nobody.status).toBe(202);
    expect(nobody.body.kind).toBe('unknown_virtual_account');
    expect(await deposits(u)).toHaveLength(0);
    expect(await walletBalance(t.url, m.merchant_id, m.wallet_id)).toBe('0.00');

    const resolve = (body: unknown) => admin(t.url, 'POST', `/admin/v1/exceptions/${exceptionId}/resolve`, body);
    expect((await resolve({ action: 'assign_to_wallet', reason: 'no wallet named' })).status).toBe(409);
    const assigned = await resolve({
      action: 'assign_to_wallet',
      reason: 'remitter confirmed',
      wallet_id: m.wallet_id,
    });
    expect(assigned.status).toBe(200);
    expect(assigned.body).toMatchObject({ state: 'resolved', resolution: { action: 'assign_to_wallet' } });
    expect(await walletBalance(t.url, m.merchant_id, m.wallet_id)).toBe('697.64');
    const [dep] = await deposits(u);
    expect(dep).toMatchObject({ source: 'exception', exception_id: exceptionId, wallet_id: m.wallet_id });
    expect((await resolve({ action: 'assign_to_wallet', reason: 'twice', wallet_id: m.wallet_id })).status).toBe(409);
    // The same bank credit again: credited already, nothing changes.
    expect((await notify(body)).body).toMatchObject({ result: 'unchanged', deposit_id: dep?.id });
    expect(await walletBalance(t.url, m.merchant_id, m.wallet_id)).toBe('697.64');
    await expectLedgerOk(t.url);
  });

  it('keeps deposits from remitters outside a non-empty allowed list out of the wallet until finance assigns them', async () => {
    const m = await createMerchant(t.url, 'Allowed remitters');
    const va = await vaOf(m.wallet_id);
    const set = await admin(t.url, 'PUT', `/admin/v1/merchants/${m.merchant_id}/allowed-remitters`, {
      accounts: [{ account_number: '11112222', ifsc: 'icic0001234' }],
    });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      merchant_id: m.merchant_id,
      accounts: [{ account_number: '11112222', ifsc: 'ICIC0001234' }],
    });
    const ok = await sandbox({
      virtual_account: va.number,
      amount: '100.00',
      utr: utr(),
      remitter_account: '11112222',
      remitter_ifsc: 'ICIC0001234',
    });
    expect(ok.status).toBe(200);
    const u = utr();
    const stranger = {
      virtual_account: va.number,
      amount: '40.00',
      utr: u,
      remitter_account: '99990000',
      remitter_ifsc: 'SBIN0000001',
    };
    const refused = await notify(stranger);
    expect(refused.body).toMatchObject({ result: 'refused' });
    const ex = await admin(t.url, 'GET', `/admin/v1/exceptions/${refused.body.exception_id as string}`);
    expect(ex.body).toMatchObject({ kind: 'remitter_not_allowed', merchant_id: m.merchant_id, wallet_id: m.wallet_id });
    expect(await walletBalance(t.url, m.merchant_id, m.wallet_id)).toBe('100.00');
    expect(await deposits(u)).toHaveLength(0);
    const assigned = await admin(t.url, 'POST', `/admin/v1/exceptions/${refused.body.exception_id as string}/resolve`, {
      action: 'assign_to_wallet',
      reason: 'merchant vouched for the remitter',
      wallet_id: m.wallet_id,
    });
    expect(assigned.status).toBe(200);
    expect(await walletBalance(t.url, m.merchant_id, m.wallet_id)).toBe('140.00');
    // An empty list allows everyone again.
    expect(
      (await admin(t.url, 'PUT', `/admin/v1/merchants/${m.merchant_id}/allowed-remitters`, { accounts: [] })).status,
    ).toBe(200);
    expect((await notify({ ...stranger, utr: utr() })).body).toMatchObject({ result: 'credited' });
    expect(await walletBalance(t.url, m.merchant_id, m.wallet_id)).toBe('180.00');
    // Dismissing credits nothing.
    const other = await notify({ ...stranger, virtual_account: '12345', utr: utr() });
    const dismissed = await admin(t.url, 'POST', `/admin/v1/exceptions/${other.body.exception_id as string}/resolve`, {
      action: 'dismiss',
      reason: 'returned by the bank',
    });
    expect(dismissed.status).toBe(200);
    expect(await walletBalance(t.url, m.merchant_id, m.wallet_id)).toBe('180.00');
    await expectLedgerOk(t.url);
  });

  it('credits a UTR once when its reports race each other on several connections', async () => {
    const m = await createMerchant(t.url, 'Racing deposits');
    const va = await vaOf(m.wallet_id);
    const u = utr();
    const body = { virtual_account: va.number, amount: '321.00', utr: u };
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? notify(body) : sandbox(body))),
    );
    expect(answers.map((a) => a.status).sort()).toEqual(Array(8).fill(200));
    const credited = answers.filter((a) => a.body.result === 'credited' || a.body.duplicate === false);
    expect(credited).toHaveLength(1);
    expect(new Set(answers.map((a) => a.body.deposit_id)).size).toBe(1);
    expect(await deposits(u)).toHaveLength(1);
    expect(await walletBalance(t.url, m.merchant_id, m.wallet_id)).toBe('321.00');
    await expectLedgerOk(t.url);
  });

  it('refuses a deposit report that is not one, and an unsigned one', async () => {
    expect((await sandbox({ virtual_account: '1', amount: '-1', utr: utr() })).status).toBe(400);
    expect((await notify({ virtual_account: '1', amount: '1.00' })).status).toBe(400);
    const raw = JSON.stringify({ virtual_account: '1', amount: '1.00', utr: utr() });
    const unsigned = await http(t.url, 'POST', '/psp/v1/deposits/notify', {
      rawBody: raw,
      headers: { 'content-type': 'application/json' },
    });
    expect(unsigned.status).toBe(401);
  });
});

describe('virtual accounts in live mode', () => {
  it('are not shown until PAYRAIL_VA_IFSC is set, and the sandbox route does not exist', async () => {
    const t = await startTestServer('pglite', { env: { PAYRAIL_MODE: 'live' } });
    try {
      const m = await createMerchant(t.url, 'Live VA');
      const res = await admin(t.url, 'GET', `/admin/v1/wallets/${m.wallet_id}`);
      expect(res.status).toBe(200);
      expect(res.body.virtual_account).toBeUndefined();
      expect((await admin(t.url, 'POST', '/admin/v1/sandbox/deposits', {})).status).toBe(404);
    } finally {
      await t.close();
    }
  });
});
