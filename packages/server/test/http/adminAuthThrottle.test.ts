import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../support/merchantClient.ts';
import { ENGINES, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../support/testServer.ts';

/** Issue 10 finding 12: failed admin authentications are throttled per client address (SECURITY.md). */
describe('admin authentication throttle', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer('pglite', {
      env: { PAYRAIL_ADMIN_FAILURES_PER_ADDRESS: '3', PAYRAIL_TRUST_PROXY: 'loopback' },
    });
  }, 180_000);
  afterAll(() => t?.close());

  const get = (token: string, from: string) =>
    http(t.url, 'GET', '/admin/v1/ledger/verify', {
      headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': from },
    });

  it('answers 429 with the admin error body and Retry-After after too many failures, even to the right token', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await get(`guess-${i}`, '203.0.113.1');
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
    }
    for (const token of ['guess-4', TEST_ADMIN_TOKEN]) {
      const res = await get(token, '203.0.113.1');
      expect(res.status).toBe(429);
      expect(res.body).toEqual({ error: { code: 'rate_limited', message: expect.any(String) } });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(15 * 60 - 60);
    }
    // Another address is not affected, and successes are never counted.
    for (let i = 0; i < 5; i++) expect((await get(TEST_ADMIN_TOKEN, '203.0.113.2')).status).toBe(200);
  });

  it('audits the wrong tokens it checked, counted in one row per address and minute, never the token', async () => {
    const { rows } = await t.db.query<{ count: number; http_status: number; detail: string; actor: string }>(
      `SELECT count, http_status, detail, actor FROM audit_log
        WHERE action = 'admin.auth_failed' AND client_address = '203.0.113.1'`,
    );
    // The three wrong tokens; the refusals of the throttle looked at no token and write nothing.
    expect(rows.reduce((sum, r) => sum + Number(r.count), 0)).toBe(3);
    expect(rows.length).toBeLessThanOrEqual(2);
    expect(rows[0]).toMatchObject({ http_status: 401, actor: 'anonymous' });
    expect(JSON.stringify(rows)).not.toContain('guess-');
  });
});

/** Wrong admin bearer tokens are audited per client address and minute, in one row that counts them. */
describe.each(ENGINES)('admin authentication refusals in the audit log on %s', (engine) => {
  let t: TestServer;
  beforeAll(async () => {
    // The test server's throttle allows 100000 failures: every one of the wrong tokens below is checked.
    t = await startTestServer(engine, { env: { PAYRAIL_TRUST_PROXY: 'loopback' } });
  }, 180_000);
  afterAll(() => t?.close());

  const get = (token: string, from: string) =>
    http(t.url, 'GET', '/admin/v1/stats', {
      headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': from },
    });
  const rowsOf = async (address: string) =>
    (
      await t.db.query<{ count: number; minute: Date; detail: string; actor: string }>(
        `SELECT count, minute, detail, actor FROM audit_log WHERE action = 'admin.auth_failed' AND client_address = $1`,
        [address],
      )
    ).rows;

  it('writes 1000 wrong tokens from one address within a minute as one row with count 1000', async () => {
    const tokens = Array.from({ length: 1000 }, (_, i) => `guess-${i}-${'z'.repeat(32)}`);
    const started = Date.now();
    // Fifty at a time: concurrent refusals of one address meet on the same row.
    for (let i = 0; i < tokens.length; i += 50) {
      const answers = await Promise.all(tokens.slice(i, i + 50).map((token) => get(token, '203.0.113.50')));
      expect(answers.every((a) => a.status === 401)).toBe(true);
    }
    const minutes = Math.floor(Date.now() / 60_000) - Math.floor(started / 60_000) + 1;
    const rows = await rowsOf('203.0.113.50');
    // One row per minute the run touched: one, or two when it crossed a minute boundary (more on a crowded machine).
    expect(rows.length).toBeLessThanOrEqual(minutes);
    expect(new Set(rows.map((r) => r.minute.toISOString())).size).toBe(rows.length);
    expect(rows.reduce((sum, r) => sum + Number(r.count), 0)).toBe(1000);
    const { rows: leaked } = await t.db.query<{ n: bigint }>(
      `SELECT count(*)::int8 AS n FROM audit_log WHERE strpos(actor || actor_name || target || detail, 'guess-') > 0`,
    );
    expect(Number(leaked[0]?.n)).toBe(0);
    // Another address has its own row; a missing token counts like a wrong one.
    expect(
      (await http(t.url, 'GET', '/admin/v1/stats', { headers: { 'x-forwarded-for': '203.0.113.51' } })).status,
    ).toBe(401);
    expect((await rowsOf('203.0.113.51')).map((r) => Number(r.count))).toEqual([1]);
  }, 180_000);

  it('shows the counted row in the audit API', async () => {
    const res = await http(t.url, 'GET', '/admin/v1/audit?limit=200', {
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    expect(res.status).toBe(200);
    const row = (res.body.data as Record<string, unknown>[]).find(
      (e) => e.action === 'admin.auth_failed' && e.client_address === '203.0.113.50',
    );
    expect(row).toMatchObject({ actor: 'anonymous', outcome: 'denied', http_status: 401, count: expect.any(Number) });
    expect(Number(row?.count)).toBeGreaterThan(1);
  });

  it('lets the count only grow: the rest of a counted row, and every other row, stays as written', async () => {
    const created = await http(t.url, 'POST', '/admin/v1/merchants', {
      body: { name: 'Audited Co' },
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    expect(created.status).toBe(201);
    await expect(
      t.db.query(`UPDATE audit_log SET count = count - 1 WHERE action = 'admin.auth_failed'`),
    ).rejects.toThrow(/append-only/);
    await expect(
      t.db.query(`UPDATE audit_log SET count = count + 1, detail = 'rewritten' WHERE action = 'admin.auth_failed'`),
    ).rejects.toThrow(/append-only/);
    await expect(
      t.db.query(`UPDATE audit_log SET count = count + 1 WHERE action <> 'admin.auth_failed'`),
    ).rejects.toThrow(/append-only/);
    await expect(t.db.query(`DELETE FROM audit_log WHERE action = 'admin.auth_failed'`)).rejects.toThrow(/append-only/);
  });
});
