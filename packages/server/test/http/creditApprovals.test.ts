import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleSession, createOperator, TEST_PASSWORD } from '../support/consoleClient.ts';
import { admin, createMerchant, type HttpResult, type TestMerchant } from '../support/merchantClient.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

/**
 * Maker ≠ checker for wallet credits holds against the two ways round it: approving through an account the maker
 * set up (approval lineage), and splitting one large credit into several small ones (rolling 24 h sums).
 */
describe.each(ENGINES)('credit approvals on %s', (engine) => {
  let t: TestServer;
  let m: TestMerchant;
  let maker: ConsoleSession;
  let independent: ConsoleSession;
  const email = (name: string) => `${name}-${engine}@example.test`;
  const OTHER_PASSWORD = 'chosen by the maker!';

  const balance = async (walletId: string) =>
    (await admin(t.url, 'GET', `/admin/v1/wallets/${walletId}`)).body.balance as string;
  const credit = (s: ConsoleSession, walletId: string, amount: string, reference?: string) =>
    s.request('POST', `/admin/v1/wallets/${walletId}/credits`, { amount, ...(reference ? { reference } : {}) });
  const operatorId = async (s: ConsoleSession) =>
    ((await s.request('GET', '/console/api/session')).body.operator as { operator_id: string }).operator_id;
  const idOf = (res: HttpResult) => {
    if (res.status !== 201) throw new Error(`operator create failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.operator_id as string;
  };
  /** A pending request of the maker's, to approve. */
  const pendingOf = async (s: ConsoleSession) => {
    const made = await credit(s, m.wallet_id, '5000.00');
    expect(made.status).toBe(202);
    return made.body.credit_request_id as string;
  };
  const expectLineageRefusal = async (checker: ConsoleSession, requestId: string) => {
    const before = await balance(m.wallet_id);
    const res = await checker.request('POST', `/admin/v1/credit-requests/${requestId}/approve`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      error: { code: 'lineage_conflict', message: expect.stringMatching(/independent operator/) },
    });
    expect(await balance(m.wallet_id)).toBe(before);
    const request = await admin(t.url, 'GET', `/admin/v1/credit-requests?status=pending`);
    expect((request.body.data as { credit_request_id: string }[]).map((r) => r.credit_request_id)).toContain(requestId);
  };

  beforeAll(async () => {
    t = await startTestServer(engine, { env: { PAYRAIL_CREDIT_APPROVAL_ABOVE: '1000.00' } });
    m = await createMerchant(t.url, 'Approvals Co');
    await createOperator(t.url, email('maker'), 'admin');
    await createOperator(t.url, email('independent'), 'finance');
    [maker, independent] = await Promise.all([
      ConsoleSession.signIn(t.url, email('maker')),
      ConsoleSession.signIn(t.url, email('independent')),
    ]);
  }, 180_000);
  afterAll(() => t.close());

  describe('approval lineage', () => {
    it('refuses a checker the maker created with a password of their choosing; an independent one approves', async () => {
      const id = await pendingOf(maker);
      idOf(
        await maker.request('POST', '/admin/v1/operators', {
          email: email('puppet'),
          role: 'finance',
          password: OTHER_PASSWORD,
        }),
      );
      const puppet = await ConsoleSession.signIn(t.url, email('puppet'), OTHER_PASSWORD);
      await expectLineageRefusal(puppet, id);

      const before = Number(await balance(m.wallet_id));
      const approved = await independent.request('POST', `/admin/v1/credit-requests/${id}/approve`);
      expect(approved.status).toBe(200);
      expect(Number(await balance(m.wallet_id)) - before).toBe(5000);
    });

    it('refuses a checker whose password the maker set, whom the maker promoted or re-enabled', async () => {
      const id = await pendingOf(maker);
      const reset = await createOperator(t.url, email('reset'), 'finance');
      expect((await maker.request('PATCH', `/admin/v1/operators/${reset}`, { password: OTHER_PASSWORD })).status).toBe(
        200,
      );
      await expectLineageRefusal(await ConsoleSession.signIn(t.url, email('reset'), OTHER_PASSWORD), id);

      const promoted = await createOperator(t.url, email('promoted'), 'viewer');
      expect((await maker.request('PATCH', `/admin/v1/operators/${promoted}`, { role: 'finance' })).status).toBe(200);
      await expectLineageRefusal(await ConsoleSession.signIn(t.url, email('promoted')), id);

      const returning = await createOperator(t.url, email('returning'), 'finance');
      expect((await admin(t.url, 'PATCH', `/admin/v1/operators/${returning}`, { disabled: true })).status).toBe(200);
      expect((await maker.request('PATCH', `/admin/v1/operators/${returning}`, { disabled: false })).status).toBe(200);
      await expectLineageRefusal(await ConsoleSession.signIn(t.url, email('returning')), id);
    });

    it('follows the lineage through other operators: the maker created an admin who created the checker', async () => {
      const id = await pendingOf(maker);
      idOf(
        await maker.request('POST', '/admin/v1/operators', {
          email: email('deputy'),
          role: 'admin',
          password: OTHER_PASSWORD,
        }),
      );
      const deputy = await ConsoleSession.signIn(t.url, email('deputy'), OTHER_PASSWORD);
      idOf(
        await deputy.request('POST', '/admin/v1/operators', {
          email: email('grandchild'),
          role: 'finance',
          password: TEST_PASSWORD,
        }),
      );
      await expectLineageRefusal(await ConsoleSession.signIn(t.url, email('grandchild')), id);
    });

    it('refuses the other way round and between two accounts one operator set up', async () => {
      for (const name of ['left', 'right']) {
        idOf(
          await maker.request('POST', '/admin/v1/operators', {
            email: email(name),
            role: 'finance',
            password: OTHER_PASSWORD,
          }),
        );
      }
      const left = await ConsoleSession.signIn(t.url, email('left'), OTHER_PASSWORD);
      const right = await ConsoleSession.signIn(t.url, email('right'), OTHER_PASSWORD);
      // The maker signs in as an account they created, asks, and approves as themselves or as its sibling.
      const id = await pendingOf(left);
      await expectLineageRefusal(maker, id);
      await expectLineageRefusal(right, id);
      expect((await independent.request('POST', `/admin/v1/credit-requests/${id}/approve`)).status).toBe(200);
    });

    it('lets two operators the same admin only promoted approve each other (a promotion hands out no password)', async () => {
      const a = await createOperator(t.url, email('prom-a'), 'viewer');
      const b = await createOperator(t.url, email('prom-b'), 'viewer');
      for (const op of [a, b]) {
        expect((await maker.request('PATCH', `/admin/v1/operators/${op}`, { role: 'finance' })).status).toBe(200);
      }
      const promA = await ConsoleSession.signIn(t.url, email('prom-a'));
      const promB = await ConsoleSession.signIn(t.url, email('prom-b'));
      const id = await pendingOf(promA);
      expect((await promB.request('POST', `/admin/v1/credit-requests/${id}/approve`)).status).toBe(200);
    });

    it('shows the lineage in the audit log of operator changes', async () => {
      const res = await admin(t.url, 'GET', '/admin/v1/audit?limit=200');
      const entries = res.body.data as { actor: string; action: string; detail: string; http_status: number }[];
      const created = entries.find((e) => e.action === 'operator.create' && e.actor === email('maker'));
      expect(created?.detail).toMatch(/lineage: created by .*maker/);
      const reset = entries.find(
        (e) => e.action === 'operator.update' && e.actor === email('maker') && /password set/.test(e.detail),
      );
      expect(reset?.detail).toMatch(/lineage: password set by .*maker/);
      expect(entries.some((e) => e.action === 'operator.update' && /lineage: promoted by/.test(e.detail))).toBe(true);
      expect(entries.some((e) => e.action === 'operator.update' && /lineage: re-enabled by/.test(e.detail))).toBe(true);
      const token = entries.find((e) => e.action === 'operator.create' && e.actor === 'operator:admin-token');
      expect(token?.detail).toMatch(/lineage: created by operator:admin-token/);
      const refused = entries.find((e) => e.action === 'credit_request.approve' && e.http_status === 403);
      expect(refused).toBeDefined();
    });

    it('is kept by the database: grants cannot be erased, and an approval by SQL is refused too', async () => {
      const makerId = await operatorId(maker);
      const { rows } = await t.db.query<{ kind: string; granted_by: string }>(
        `SELECT kind, granted_by FROM operator_grants WHERE granted_by_id = $1 ORDER BY id`,
        [makerId],
      );
      expect(rows.map((r) => r.kind)).toEqual(expect.arrayContaining(['create', 'password', 'promote', 're_enable']));
      await expect(t.db.query('DELETE FROM operator_grants')).rejects.toThrow(/append-only/);
      const id = await pendingOf(maker);
      await expect(
        t.db.query(
          `UPDATE credit_requests SET status = 'approved', decided_by = $2, decided_at = now() WHERE id = $1`,
          [id, email('puppet')],
        ),
      ).rejects.toThrow(/independent/);
    });

    it('terminates on a cycle of grants (two admins who reset each other) and still finds the link', async () => {
      const a = await createOperator(t.url, email('cycle-a'), 'admin');
      const b = await createOperator(t.url, email('cycle-b'), 'admin');
      await t.db.query(
        `INSERT INTO operator_grants (operator_id, kind, granted_by, granted_by_id)
         VALUES ($1, 'password', $3, $2), ($2, 'password', $4, $1)`,
        [a, b, email('cycle-b'), email('cycle-a')],
      );
      const { rows } = await t.db.query<{ linked: boolean; apart: boolean }>(
        'SELECT operators_independent($1, $2) AS linked, operators_independent($1, $3) AS apart',
        [a, b, await operatorId(independent)],
      );
      expect(rows[0]).toEqual({ linked: false, apart: true });
    });
  });

  describe('rolling 24 h sums of direct credits', () => {
    it('holds the credit that takes one operator’s credits to one wallet in 24 h above the threshold', async () => {
      const w = (await createMerchant(t.url, 'Structuring Co')).wallet_id;
      expect((await credit(independent, w, '400.00')).status).toBe(200);
      expect((await credit(independent, w, '400.00')).status).toBe(200);
      const third = await credit(independent, w, '400.00');
      expect(third.status).toBe(202);
      expect(third.body).toMatchObject({ status: 'pending', amount: '400.00', requested_by: email('independent') });
      expect(await balance(w)).toBe('800.00');
      // At the threshold exactly is still direct; another operator, another wallet and the admin token have their own.
      expect((await credit(independent, w, '200.00')).status).toBe(200);
      expect((await credit(maker, w, '1000.00')).status).toBe(200);
      expect((await credit(independent, m.wallet_id, '400.00')).status).toBe(200);
      expect((await admin(t.url, 'POST', `/admin/v1/wallets/${w}/credits`, { amount: '5000.00' })).status).toBe(200);
      // The held credit is approved like any other.
      const approved = await maker.request('POST', `/admin/v1/credit-requests/${third.body.credit_request_id}/approve`);
      expect(approved.status).toBe(200);
      expect(await balance(w)).toBe('7400.00');
    });

    it('counts only the last 24 hours, by the database clock', async () => {
      const w = (await createMerchant(t.url, 'Window Co')).wallet_id;
      const me = await operatorId(independent);
      const old = `INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, credited_by, created_at)
                   VALUES ($1, 'credit', $2, 0, $3, now() - $4::interval)`;
      await t.db.query(old, [w, '90000', me, '25 hours']);
      expect((await credit(independent, w, '1000.00')).status).toBe(200);
      await t.db.query(old, [w, '10000', me, '23 hours']);
      expect((await credit(independent, w, '900.00')).status).toBe(202);
    });

    it('answers a repeated reference as the same credit, not a new one', async () => {
      const w = (await createMerchant(t.url, 'Reference Co')).wallet_id;
      const first = await credit(independent, w, '600.00', `ref-${engine}`);
      expect(first.body).toMatchObject({ balance: '600.00', duplicate: false });
      const again = await credit(independent, w, '600.00', `ref-${engine}`);
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ balance: '600.00', duplicate: true });
      expect((await credit(independent, w, '700.00', `ref-${engine}`)).status).toBe(409);
      expect((await credit(independent, w, '600.00', `ref2-${engine}`)).status).toBe(202);
      expect(await balance(w)).toBe('600.00');
    });

    it('holds under concurrency: simultaneous credits by one operator cannot all slip under', async () => {
      const w = (await createMerchant(t.url, 'Race Co')).wallet_id;
      const results = await Promise.all(Array.from({ length: 6 }, () => credit(independent, w, '400.00')));
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([200, 200, 202, 202, 202, 202]);
      expect(await balance(w)).toBe('800.00');
    });
  });
});
