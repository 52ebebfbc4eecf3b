import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { http, type HttpResult } from '../support/merchantClient.ts';
import { exitWithin, freePort, spawnServer, type ChildServer } from '../support/childServer.ts';

const ADMIN_TOKEN = 'kill-restart-admin-token';

/**
 * The embedded database survives `kill -9`: every merchant, wallet, credit and setting the server acknowledged
 * before it was killed is there after a restart on the same data directory, and a second server on a directory
 * in use refuses to start.
 */
describe('kill -9 and restart on the same data directory (PGlite)', () => {
  const children: ChildServer[] = [];
  let dataDir = '';
  afterAll(async () => {
    for (const child of children) await child.kill();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const start = async (wait = true) => {
    const child = spawnServer({
      PORT: String(await freePort()),
      PAYRAIL_DATA_DIR: dataDir,
      PAYRAIL_ADMIN_TOKEN: ADMIN_TOKEN,
    });
    children.push(child);
    if (wait) await child.ready(90_000);
    return child;
  };
  const call = (s: ChildServer, method: string, path: string, body?: unknown): Promise<HttpResult> =>
    http(s.url, method, path, { body, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

  it('keeps every acknowledged write, and refuses a second server on the directory', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'payrail-kill-'));
    const first = await start();

    // Acknowledged writes, one after another.
    const merchants: { merchant_id: string; name: string; api_key: string; secret_key: string; wallet_id: string }[] =
      [];
    const balances = new Map<string, string>();
    for (const [i, amount] of ['1000.00', '250.50', '0.01'].entries()) {
      const created = await call(first, 'POST', '/admin/v1/merchants', { name: `Durable ${i}` });
      expect(created.status).toBe(201);
      const m = created.body as unknown as (typeof merchants)[number];
      merchants.push(m);
      const credited = await call(first, 'POST', `/admin/v1/wallets/${m.wallet_id}/credits`, {
        amount,
        reference: `dep-${i}`,
      });
      expect(credited.status).toBe(200);
      balances.set(m.wallet_id, credited.body.balance as string);
    }
    const extra = await call(first, 'POST', `/admin/v1/merchants/${merchants[0]?.merchant_id}/wallets`);
    expect(extra.status).toBe(201);
    const extraWallet = extra.body.wallet_id as string;
    const extraCredit = await call(first, 'POST', `/admin/v1/wallets/${extraWallet}/credits`, { amount: '42.00' });
    balances.set(extraWallet, extraCredit.body.balance as string);
    const patched = await call(first, 'PATCH', `/admin/v1/merchants/${merchants[1]?.merchant_id}`, {
      daily_limit: '5000.00',
    });
    expect(patched.status).toBe(200);
    // A token issued before the crash (its signing key lives in the database).
    const m0 = merchants[0] as (typeof merchants)[number];
    const tokenRes = await http(first.url, 'POST', '/v1/auth/client-token', {
      body: { apiKey: m0.api_key, secretKey: m0.secret_key },
    });
    expect(tokenRes.body.respCode).toBe(2000);

    // A burst of credits, killed while it is under way: what was acknowledged must survive.
    const burstWallet = merchants[2]?.wallet_id as string;
    const acknowledged: string[] = [];
    let settled = 0;
    const burst = Array.from({ length: 30 }, (_, i) =>
      call(first, 'POST', `/admin/v1/wallets/${burstWallet}/credits`, { amount: '1.00', reference: `burst-${i}` })
        .then((res) => {
          if (res.status === 200) acknowledged.push(`burst-${i}`);
        })
        .catch(() => {})
        .finally(() => settled++),
    );
    while (acknowledged.length < 5 && settled < burst.length) await new Promise((r) => setTimeout(r, 2));
    first.proc.kill('SIGKILL');
    const killed = await exitWithin(first, 10_000);
    expect(killed.signal).toBe('SIGKILL');
    await Promise.all(burst);
    const acked = [...acknowledged];
    expect(acked.length).toBeGreaterThanOrEqual(5);

    // The killed server left its lock behind: the restart must take it over.
    expect(await readFile(join(dataDir, 'payrail.lock'), 'utf8')).toBe(String(first.pid));

    const second = await start();
    for (const m of merchants) {
      const res = await call(second, 'GET', `/admin/v1/merchants/${m.merchant_id}`);
      expect(res.status, m.merchant_id).toBe(200);
      expect(res.body.name).toBe(m.name);
    }
    const m0View = await call(second, 'GET', `/admin/v1/merchants/${m0.merchant_id}`);
    expect((m0View.body.wallets as { wallet_id: string }[]).map((w) => w.wallet_id).sort()).toEqual(
      [m0.wallet_id, extraWallet].sort(),
    );
    const m1View = await call(second, 'GET', `/admin/v1/merchants/${merchants[1]?.merchant_id}`);
    expect(m1View.body.limits).toMatchObject({ daily_limit: '5000.00' });
    for (const [walletId, balance] of balances) {
      if (walletId === burstWallet) continue;
      const res = await call(second, 'GET', `/admin/v1/wallets/${walletId}`);
      expect(res.status).toBe(200);
      expect(res.body.balance, walletId).toBe(balance);
    }

    // The burst wallet holds at least every acknowledged credit, and at most every credit that was sent.
    const burstBalance = Number((await call(second, 'GET', `/admin/v1/wallets/${burstWallet}`)).body.balance);
    expect(burstBalance).toBeGreaterThanOrEqual(0.01 + acked.length);
    expect(burstBalance).toBeLessThanOrEqual(0.01 + burst.length);
    // Each acknowledged reference is recorded: sending it again moves nothing.
    for (const reference of acked) {
      const again = await call(second, 'POST', `/admin/v1/wallets/${burstWallet}/credits`, {
        amount: '1.00',
        reference,
      });
      expect(again.status).toBe(200);
      expect(Number(again.body.balance), reference).toBe(burstBalance);
    }
    expect((await call(second, 'GET', '/admin/v1/ledger/verify')).body).toMatchObject({ ok: true, mismatches: [] });

    // Credentials and the token signing key survived too.
    const v2 = await http(second.url, 'POST', '/v1/auth/client-token', {
      body: { apiKey: m0.api_key, secretKey: m0.secret_key },
    });
    expect(v2.body.respCode).toBe(2000);
    const { decryptJsonObject } = await import('@payrail/protocol');
    const { token } = decryptJsonObject(tokenRes.body.data, 'v2', { apiKey: m0.api_key, secretKey: m0.secret_key });
    const balance = await http(second.url, 'GET', `/payout/v1/balance?wallet_id=${m0.wallet_id}`, {
      headers: { authorization: `Bearer ${token as string}` },
    });
    expect(balance.body.resp_code).toBe(2000);

    // A second server on the directory in use exits 3 with a clear message, and the first keeps running.
    const intruder = await start(false);
    const refused = await exitWithin(intruder, 60_000);
    expect(refused.code).toBe(3);
    expect(intruder.output().stderr).toMatch(new RegExp(`data directory .* is in use by process ${second.pid}`));
    expect(intruder.output().stderr).not.toMatch(/\bat .*:\d+:\d+/);
    expect((await http(second.url, 'GET', '/healthz')).status).toBe(200);
    expect(await readFile(join(dataDir, 'payrail.lock'), 'utf8')).toBe(String(second.pid));

    // A graceful stop releases the directory.
    second.proc.kill('SIGTERM');
    expect((await exitWithin(second, 15_000)).code).toBe(0);
    expect(existsSync(join(dataDir, 'payrail.lock'))).toBe(false);
  }, 240_000);
});
