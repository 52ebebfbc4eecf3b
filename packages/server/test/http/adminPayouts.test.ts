import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, http } from '../support/merchantClient.ts';
import {
  adminPayout,
  expectLedgerOk,
  fundedMerchant,
  initiateOk,
  listPayouts,
  payoutRequest,
  SANDBOX,
  waitForStatus,
  walletBalance,
  type Funded,
} from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

describe.each(ENGINES)('admin payouts on %s', (engine) => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer(engine);
  });
  afterAll(() => t.close());

  const pay = (f: Funded, account: string, amount = '100.00') =>
    initiateOk(
      f.client,
      payoutRequest('nested', {
        wallet_id: f.merchant.wallet_id,
        amount,
        beneficiary_ifsc: SANDBOX.ifsc,
        beneficiary_acc_number: account,
      }),
    );

  const pendingPayout = async (f: Funded, amount = '100.00') => {
    const p = await pay(f, SANDBOX.pending, amount);
    await waitForStatus(t.url, p.transaction_id as string, 'PENDING');
    return p.transaction_id as string;
  };

  const resolve = (id: string, body: unknown) => admin(t.url, 'POST', `/admin/v1/payouts/${id}/resolve`, body);

  describe('list', () => {
    let f: Funded;
    let other: Funded;
    const ids: Record<string, string[]> = { SUCCESS: [], PENDING: [], REFUNDED: [] };

    beforeAll(async () => {
      f = await fundedMerchant(t.url, 'v2', '10000.00');
      other = await fundedMerchant(t.url, 'v1', '1000.00');
      for (const [status, account] of [
        ['SUCCESS', SANDBOX.success],
        ['PENDING', SANDBOX.pending],
        ['REFUNDED', SANDBOX.failure],
        ['SUCCESS', SANDBOX.success],
        ['PENDING', SANDBOX.pending],
      ] as const) {
        ids[status]?.push((await pay(f, account)).transaction_id as string);
      }
      await pay(other, SANDBOX.success);
      for (const [status, list] of Object.entries(ids)) {
        for (const id of list) await waitForStatus(t.url, id, status);
      }
    });

    it("lists a merchant's payouts newest first with the operator's fields", async () => {
      const res = await admin(t.url, 'GET', `/admin/v1/payouts?merchant_id=${f.merchant.merchant_id}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ has_more: false, next_cursor: null });
      const data = res.body.data as Record<string, unknown>[];
      const all = [...ids.SUCCESS!, ...ids.PENDING!, ...ids.REFUNDED!].sort().reverse();
      expect(data.map((p) => p.transaction_id)).toEqual(all);
      for (const p of data) {
        expect(p).toMatchObject({
          merchant_id: f.merchant.merchant_id,
          wallet_id: f.merchant.wallet_id,
          scheme: 'v2',
          rail: 'sandbox',
          amount: '100.00',
          payment_mode: 'IMPS',
          beneficiary: { beneficiary_ifsc: SANDBOX.ifsc },
        });
      }
      expect(data.find((p) => p.status === 'SUCCESS')?.utr_number).toMatch(/^\d{12}$/);
    });

    it.each(['SUCCESS', 'PENDING', 'REFUNDED'])('filters by status %s', async (status) => {
      const res = await admin(t.url, 'GET', `/admin/v1/payouts?merchant_id=${f.merchant.merchant_id}&status=${status}`);
      expect(res.status).toBe(200);
      const data = res.body.data as Record<string, unknown>[];
      expect(data.map((p) => p.transaction_id).sort()).toEqual([...(ids[status] ?? [])].sort());
      for (const p of data) expect(p.status).toBe(status);
    });

    it('filters to nothing for a status no payout has', async () => {
      const res = await admin(t.url, 'GET', `/admin/v1/payouts?merchant_id=${f.merchant.merchant_id}&status=FAILED`);
      expect(res.body).toEqual({ data: [], has_more: false, next_cursor: null });
    });

    it('lists every merchant without merchant_id', async () => {
      const res = await admin(t.url, 'GET', '/admin/v1/payouts?limit=200');
      const merchants = new Set((res.body.data as { merchant_id: string }[]).map((p) => p.merchant_id));
      expect(merchants.has(f.merchant.merchant_id)).toBe(true);
      expect(merchants.has(other.merchant.merchant_id)).toBe(true);
    });

    it('pages with limit and cursor, without gaps or repeats', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query = new URLSearchParams({ merchant_id: f.merchant.merchant_id, limit: '2' });
        if (cursor) query.set('cursor', cursor);
        const res = await admin(t.url, 'GET', `/admin/v1/payouts?${query}`);
        expect(res.status).toBe(200);
        const data = res.body.data as { transaction_id: string }[];
        pages += 1;
        expect(data.length).toBe(pages < 3 ? 2 : 1);
        expect(res.body.has_more).toBe(pages < 3);
        seen.push(...data.map((p) => p.transaction_id));
        cursor = res.body.next_cursor as string | null;
        expect(typeof cursor === 'string').toBe(pages < 3);
      } while (cursor);
      expect(pages).toBe(3);
      expect(seen).toEqual((await listPayouts(t.url, f.merchant.merchant_id)).map((p) => p.transaction_id));
      expect(new Set(seen).size).toBe(5);
    });

    it('pages within a status filter', async () => {
      const first = await admin(
        t.url,
        'GET',
        `/admin/v1/payouts?merchant_id=${f.merchant.merchant_id}&status=SUCCESS&limit=1`,
      );
      expect(first.body.has_more).toBe(true);
      const second = await admin(
        t.url,
        'GET',
        `/admin/v1/payouts?merchant_id=${f.merchant.merchant_id}&status=SUCCESS&limit=1&cursor=${first.body.next_cursor as string}`,
      );
      expect(second.body.has_more).toBe(false);
      const got = [
        ...(first.body.data as { transaction_id: string }[]),
        ...(second.body.data as { transaction_id: string }[]),
      ];
      expect(got.map((p) => p.transaction_id)).toEqual([...ids.SUCCESS!].sort().reverse());
    });

    it.each([
      ['an unknown status', 'status=DONE'],
      ['a limit that is not a number', 'limit=ten'],
      ['a cursor it never issued', 'cursor=bm9wZQ'],
    ])('refuses %s with 400', async (_name, query) => {
      const res = await admin(t.url, 'GET', `/admin/v1/payouts?${query}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: { code: expect.any(String), message: expect.any(String) } });
    });

    it('shows one payout, and 404 for an unknown one', async () => {
      const id = ids.PENDING![0] as string;
      expect(await adminPayout(t.url, id)).toMatchObject({ transaction_id: id, status: 'PENDING' });
      const res = await admin(t.url, 'GET', '/admin/v1/payouts/PT01ARZ3NDEKTSV4RRFFQ69G5FAV');
      expect(res.status).toBe(404);
    });

    it('requires the admin token', async () => {
      const res = await http(t.url, 'GET', '/admin/v1/payouts');
      expect(res.status).toBe(401);
      const wrong = await http(t.url, 'GET', '/admin/v1/payouts', { headers: { authorization: 'Bearer nope' } });
      expect(wrong.status).toBe(401);
      const resolveAnon = await http(t.url, 'POST', `/admin/v1/payouts/${ids.PENDING![0]}/resolve`, {
        body: { status: 'SUCCESS' },
      });
      expect(resolveAnon.status).toBe(401);
      expect((await adminPayout(t.url, ids.PENDING![0] as string)).status).toBe('PENDING');
    });
  });

  describe('resolve', () => {
    it('settles a PENDING payout as SUCCESS with the given UTR', async () => {
      const f = await fundedMerchant(t.url, 'v2', '1000.00');
      const id = await pendingPayout(f);
      const res = await resolve(id, { status: 'SUCCESS', utr_number: 'UTR123456789' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ transaction_id: id, status: 'SUCCESS', utr_number: 'UTR123456789' });
      const status = await f.client.get(`/payout/v1/status?transaction_id=${id}`);
      expect(status.data).toMatchObject({ status: 'SUCCESS', utr_number: 'UTR123456789' });
      expect(await walletBalance(t.url, f.merchant.merchant_id, f.merchant.wallet_id)).toBe('900.00');
      await expectLedgerOk(t.url);
    });

    it('gives a UTR of its own when none is given', async () => {
      const f = await fundedMerchant(t.url, 'v1', '1000.00');
      const id = await pendingPayout(f);
      const res = await resolve(id, { status: 'SUCCESS' });
      expect(res.status).toBe(200);
      expect(res.body.utr_number).toMatch(/^\d{12}$/);
    });

    it('settles a PENDING payout as FAILED, which goes on to REFUNDED with the money back', async () => {
      const f = await fundedMerchant(t.url, 'v2', '1000.00');
      const id = await pendingPayout(f, '250.00');
      expect(await walletBalance(t.url, f.merchant.merchant_id, f.merchant.wallet_id)).toBe('750.00');
      const res = await resolve(id, { status: 'FAILED' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ transaction_id: id, status: 'FAILED', utr_number: '' });
      await waitForStatus(t.url, id, 'REFUNDED');
      expect(await walletBalance(t.url, f.merchant.merchant_id, f.merchant.wallet_id)).toBe('1000.00');
      const entries = await t.db.query<{ kind: string; amount: bigint }>(
        'SELECT kind, amount FROM ledger_entries WHERE payout_id = $1 ORDER BY id',
        [id],
      );
      expect(entries.rows.map((r) => [r.kind, String(r.amount)])).toEqual([
        ['payout_debit', '-25000'],
        ['payout_refund', '25000'],
      ]);
      await expectLedgerOk(t.url);
    });

    it('refuses a payout that is not PENDING with 409, and changes nothing', async () => {
      const f = await fundedMerchant(t.url, 'v2', '1000.00');
      const succeeded = await pay(f, SANDBOX.success);
      await waitForStatus(t.url, succeeded.transaction_id as string, 'SUCCESS');
      const refunded = await pay(f, SANDBOX.failure);
      await waitForStatus(t.url, refunded.transaction_id as string, 'REFUNDED');
      const resolvedOnce = await pendingPayout(f);
      expect((await resolve(resolvedOnce, { status: 'SUCCESS' })).status).toBe(200);
      for (const [id, status] of [
        [succeeded.transaction_id as string, 'SUCCESS'],
        [refunded.transaction_id as string, 'REFUNDED'],
        [resolvedOnce, 'SUCCESS'],
      ]) {
        for (const to of ['SUCCESS', 'FAILED']) {
          const res = await resolve(id as string, { status: to });
          expect(res.status).toBe(409);
          expect(res.body).toEqual({ error: { code: expect.any(String), message: expect.any(String) } });
          expect((await adminPayout(t.url, id as string)).status).toBe(status);
        }
      }
      expect(await walletBalance(t.url, f.merchant.merchant_id, f.merchant.wallet_id)).toBe('800.00');
    });

    it('refuses a payout still on its way (INITIATED or PROCESSING) in sandbox mode with 409', async () => {
      const f = await fundedMerchant(t.url, 'v2', '1000.00');
      const p = await pay(f, SANDBOX.success);
      const res = await resolve(p.transaction_id as string, { status: 'FAILED' });
      expect(res.status).toBe(409);
      await waitForStatus(t.url, p.transaction_id as string, 'SUCCESS');
    });

    it('answers 404 for an unknown or malformed transaction_id', async () => {
      expect((await resolve('PT01ARZ3NDEKTSV4RRFFQ69G5FAV', { status: 'SUCCESS' })).status).toBe(404);
      expect((await resolve('nope', { status: 'FAILED' })).status).toBe(404);
    });

    it.each([
      ['no status', {}],
      ['status REFUNDED', { status: 'REFUNDED' }],
      ['status PROCESSING', { status: 'PROCESSING' }],
      ['an empty utr_number', { status: 'SUCCESS', utr_number: '' }],
      ['an unknown field', { status: 'SUCCESS', note: 'x' }],
    ])('refuses a body with %s with 400', async (_name, body) => {
      const f = await fundedMerchant(t.url, 'v1', '1000.00');
      const id = await pendingPayout(f);
      const res = await resolve(id, body);
      expect(res.status).toBe(400);
      expect((await adminPayout(t.url, id)).status).toBe('PENDING');
    });
  });

  describe('ledger verification', () => {
    it('reports ok with the number of wallets checked', async () => {
      const res = await admin(t.url, 'GET', '/admin/v1/ledger/verify');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ok: true,
        wallets_checked: expect.any(Number),
        platform_wallets_checked: 4,
        mismatches: [],
        unbalanced_kinds: [],
      });
      const { rows } = await t.db.query<{ n: bigint }>('SELECT count(*)::int8 AS n FROM wallets');
      expect(res.body.wallets_checked).toBe(Number(rows[0]?.n));
      expect(res.body.wallets_checked).toBeGreaterThan(0);
    });

    it('adds every entry with full=true, the same answer; any other value of full is a 400 naming it', async () => {
      const quick = await admin(t.url, 'GET', '/admin/v1/ledger/verify');
      const full = await admin(t.url, 'GET', '/admin/v1/ledger/verify?full=true');
      expect(full.status).toBe(200);
      expect(full.body).toEqual(quick.body);
      expect((await admin(t.url, 'GET', '/admin/v1/ledger/verify?full=false')).body).toEqual(quick.body);
      const bad = await admin(t.url, 'GET', '/admin/v1/ledger/verify?full=yes');
      expect(bad.status).toBe(400);
      expect(JSON.stringify(bad.body)).toContain('full');
    });
  });

  describe('the database refuses what the state machine does not allow', () => {
    let f: Funded;
    beforeAll(async () => {
      f = await fundedMerchant(t.url, 'v2', '1000.00');
    });

    /** A payout row written straight into the table (no job, so nothing moves it). */
    async function insertPayout(status = 'INITIATED'): Promise<string> {
      const id = `PT01ARZ3NDEKTSV4RRFF${Math.random()
        .toString(36)
        .slice(2, 8)
        .toUpperCase()
        .replace(/[ILOU]/g, 'X')}`;
      await t.db.query(
        `INSERT INTO payouts (id, merchant_id, wallet_id, sender_id, amount, payment_mode, beneficiary_name,
           beneficiary_account, beneficiary_ifsc, scheme, status, rail, ist_day, ist_month, created_at, updated_at)
         VALUES ($1, $2, $3, $4, 1000, 'IMPS', 'Asha Rao', '123456789012', 'HDFC0001234', 'v2', $5, 'sandbox',
                 '2026-01-01', '2026-01', now(), now())`,
        [id, f.merchant.merchant_id, f.merchant.wallet_id, `sql-${id}`, status],
      );
      return id;
    }

    const setStatus = (id: string, status: string) =>
      t.db.query('UPDATE payouts SET status = $2 WHERE id = $1', [id, status]);

    it('a payout starts INITIATED', async () => {
      await expect(insertPayout('SUCCESS')).rejects.toThrow(/starts INITIATED/);
    });

    it('INITIATED cannot jump to SUCCESS (or anything but PROCESSING)', async () => {
      const id = await insertPayout();
      for (const to of ['SUCCESS', 'FAILED', 'PENDING', 'REFUNDED']) {
        await expect(setStatus(id, to)).rejects.toThrow(/illegal payout transition/);
      }
      const { rows } = await t.db.query<{ status: string }>('SELECT status FROM payouts WHERE id = $1', [id]);
      expect(rows[0]?.status).toBe('INITIATED');
    });

    it('walks the legal path, but REFUNDED only after a refund entry in the ledger', async () => {
      const id = await insertPayout();
      await setStatus(id, 'PROCESSING');
      await expect(setStatus(id, 'INITIATED')).rejects.toThrow(/illegal payout transition/);
      await setStatus(id, 'FAILED');
      await expect(setStatus(id, 'SUCCESS')).rejects.toThrow(/illegal payout transition/);
      await expect(setStatus(id, 'REFUNDED')).rejects.toThrow(/only after its refund entry/);
      await t.db.query(
        `INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, payout_id) VALUES ($1, 'payout_refund', 1000, 0, $2)`,
        [f.merchant.wallet_id, id],
      );
      await setStatus(id, 'REFUNDED');
      await expect(setStatus(id, 'FAILED')).rejects.toThrow(/illegal payout transition/);
      await expect(
        t.db.query(
          `INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, payout_id) VALUES ($1, 'payout_refund', 1000, 0, $2)`,
          [f.merchant.wallet_id, id],
        ),
      ).rejects.toThrow();
      await expectLedgerOk(t.url);
    });

    it('a real PENDING payout cannot be refunded or reopened by SQL', async () => {
      const id = await pendingPayout(f);
      for (const to of ['REFUNDED', 'PROCESSING', 'INITIATED']) {
        await expect(setStatus(id, to)).rejects.toThrow(/illegal payout transition/);
      }
      await expect(
        t.db.transaction(async (tx) => {
          await tx.query("UPDATE payouts SET status = 'FAILED' WHERE id = $1", [id]);
          await tx.query("UPDATE payouts SET status = 'REFUNDED' WHERE id = $1", [id]);
        }),
      ).rejects.toThrow(/only after its refund entry/);
      expect((await adminPayout(t.url, id)).status).toBe('PENDING');
    });

    it('a payout is immutable but for its status', async () => {
      const id = await pendingPayout(f);
      await expect(t.db.query('UPDATE payouts SET amount = 1 WHERE id = $1', [id])).rejects.toThrow(/immutable/);
      await expect(t.db.query("UPDATE payouts SET sender_id = 'x' WHERE id = $1", [id])).rejects.toThrow(/immutable/);
      await expect(
        // Another wallet's id: the last character changed (a ULID may end in Z already: then Y).
        t.db.query('UPDATE payouts SET wallet_id = $2 WHERE id = $1', [
          id,
          f.merchant.wallet_id.replace(/.$/, (c) => (c === 'Z' ? 'Y' : 'Z')),
        ]),
      ).rejects.toThrow();
      expect((await adminPayout(t.url, id)).amount).toBe('100.00');
    });
  });
});
