import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD_COST } from '../../src/domain/passwordHash.ts';
import { auditedApiKey } from '../../src/domain/signInIdentity.ts';
import { ConsoleSession, createOperator, TEST_PASSWORD } from '../support/consoleClient.ts';
import { admin, createMerchant, http, type TestMerchant } from '../support/merchantClient.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

/** Operator accounts, sessions, roles, CSRF, audit and maker ≠ checker (docs/operator/console.md). */
describe.each(ENGINES)('console operators on %s', (engine) => {
  let t: TestServer;
  let m: TestMerchant;
  let viewer: ConsoleSession;
  let financeA: ConsoleSession;
  let financeB: ConsoleSession;
  let adminOp: ConsoleSession;
  const email = (name: string) => `${name}-${engine}@example.test`;

  beforeAll(async () => {
    // At the production cost: the stored hashes are checked for its parameters below, and sign-in against them.
    t = await startTestServer(engine, {
      env: { PAYRAIL_CREDIT_APPROVAL_ABOVE: '1000.00' },
      passwordCost: PASSWORD_COST,
    });
    m = await createMerchant(t.url, 'Console Co');
    await createOperator(t.url, email('viewer'), 'viewer');
    await createOperator(t.url, email('fin-a'), 'finance');
    await createOperator(t.url, email('fin-b'), 'finance');
    await createOperator(t.url, email('admin'), 'admin');
    [viewer, financeA, financeB, adminOp] = await Promise.all([
      ConsoleSession.signIn(t.url, email('viewer')),
      ConsoleSession.signIn(t.url, email('fin-a')),
      ConsoleSession.signIn(t.url, email('fin-b')),
      ConsoleSession.signIn(t.url, email('admin')),
    ]);
  }, 180_000);
  afterAll(() => t.close());

  describe('accounts', () => {
    it('refuses a second account with the same address (any case) and a short password', async () => {
      const dup = await admin(t.url, 'POST', '/admin/v1/operators', {
        email: email('VIEWER'),
        role: 'viewer',
        password: TEST_PASSWORD,
      });
      expect(dup.status).toBe(409);
      expect(dup.body).toEqual({ error: { code: 'operator_exists', message: expect.any(String) } });
      const short = await admin(t.url, 'POST', '/admin/v1/operators', {
        email: email('short'),
        role: 'viewer',
        password: 'short',
      });
      expect(short.status).toBe(400);
      const bad = await admin(t.url, 'POST', '/admin/v1/operators', {
        email: email('x'),
        role: 'root',
        password: TEST_PASSWORD,
      });
      expect(bad.status).toBe(400);
    });

    it('never stores or answers the password', async () => {
      const { rows } = await t.db.query<{ password_hash: string }>('SELECT password_hash FROM operators');
      for (const r of rows) {
        expect(r.password_hash).toMatch(/^scrypt\$32768\$8\$1\$/);
        expect(r.password_hash).not.toContain(TEST_PASSWORD);
      }
      const list = await admin(t.url, 'GET', '/admin/v1/operators');
      expect(JSON.stringify(list.body)).not.toMatch(/password/);
    });
  });

  describe('sign-in', () => {
    it('sets an HttpOnly, SameSite=Strict, expiring cookie and answers the CSRF token', async () => {
      expect(viewer.setCookie).toMatch(/^payrail_op=[A-Za-z0-9_-]{43}; /);
      expect(viewer.setCookie).toContain('HttpOnly');
      expect(viewer.setCookie).toContain('SameSite=Strict');
      expect(viewer.setCookie).toMatch(/Max-Age=28800/);
      expect(viewer.setCookie).not.toContain('Secure');
      const me = await viewer.request('GET', '/console/api/session');
      expect(me.status).toBe(200);
      expect(me.body.operator).toMatchObject({ email: email('viewer'), role: 'viewer' });
      expect(me.body.csrf_token).toBe(viewer.csrf);
    });

    it('stores only a hash of the session', async () => {
      const value = viewer.cookie.split('=')[1] as string;
      const { rows } = await t.db.query<{ token_hash: string }>('SELECT token_hash FROM console_sessions');
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.some((r) => r.token_hash === value)).toBe(false);
    });

    it('answers the same 401 for a wrong password and an unknown address', async () => {
      const wrong = await http(t.url, 'POST', '/console/api/session', {
        body: { email: email('viewer'), password: 'wrong password!' },
      });
      const unknown = await http(t.url, 'POST', '/console/api/session', {
        body: { email: email('nobody'), password: TEST_PASSWORD },
      });
      expect(wrong.status).toBe(401);
      expect(unknown.status).toBe(401);
      expect(wrong.body).toEqual(unknown.body);
    });

    it('refuses a sign-in posted from another origin', async () => {
      const res = await http(t.url, 'POST', '/console/api/session', {
        body: { email: email('viewer'), password: TEST_PASSWORD },
        headers: { origin: 'https://evil.example' },
      });
      expect(res.status).toBe(403);
    });

    it('signs out: the session is gone on the server, not only the cookie', async () => {
      const s = await ConsoleSession.signIn(t.url, email('viewer'));
      expect((await s.request('GET', '/admin/v1/payouts')).status).toBe(200);
      const out = await s.request('DELETE', '/console/api/session');
      expect(out.status).toBe(204);
      expect(out.headers.get('set-cookie')).toMatch(/payrail_op=; .*Max-Age=0/);
      expect((await s.request('GET', '/admin/v1/payouts')).status).toBe(401);
      expect((await s.request('GET', '/console/api/session')).status).toBe(401);
    });

    it('ends every session of an operator who is disabled', async () => {
      const id = await createOperator(t.url, email('leaver'), 'finance');
      const s = await ConsoleSession.signIn(t.url, email('leaver'));
      expect((await adminOp.request('PATCH', `/admin/v1/operators/${id}`, { disabled: true })).status).toBe(200);
      expect((await s.request('GET', '/admin/v1/payouts')).status).toBe(401);
      const again = await http(t.url, 'POST', '/console/api/session', {
        body: { email: email('leaver'), password: TEST_PASSWORD },
      });
      expect(again.status).toBe(401);
    });
  });

  describe('roles, enforced by the server', () => {
    it('lets a viewer read but not credit, even with its own valid cookie and CSRF token', async () => {
      expect((await viewer.request('GET', `/admin/v1/wallets/${m.wallet_id}`)).status).toBe(200);
      const forged = await viewer.request('POST', `/admin/v1/wallets/${m.wallet_id}/credits`, { amount: '10.00' });
      expect(forged.status).toBe(403);
      expect(forged.body).toEqual({ error: { code: 'forbidden', message: expect.stringContaining('finance') } });
      const wallet = await admin(t.url, 'GET', `/admin/v1/wallets/${m.wallet_id}`);
      expect(wallet.body.balance).toBe('0.00');
    });

    it('lets finance credit and resolve but not manage merchants or operators', async () => {
      expect(
        (await financeA.request('POST', `/admin/v1/wallets/${m.wallet_id}/credits`, { amount: '5.00' })).status,
      ).toBe(200);
      expect((await financeA.request('POST', '/admin/v1/merchants', { name: 'Nope' })).status).toBe(403);
      expect(
        (await financeA.request('PATCH', `/admin/v1/merchants/${m.merchant_id}`, { status: 'suspended' })).status,
      ).toBe(403);
      expect((await financeA.request('GET', '/admin/v1/operators')).status).toBe(403);
      expect(
        (
          await financeA.request('POST', '/admin/v1/operators', {
            email: email('sneaky'),
            role: 'admin',
            password: TEST_PASSWORD,
          })
        ).status,
      ).toBe(403);
    });

    it('lets admin manage merchants and operators', async () => {
      const created = await adminOp.request('POST', '/admin/v1/merchants', { name: 'By Admin' });
      expect(created.status).toBe(201);
      expect((await adminOp.request('GET', '/admin/v1/operators')).status).toBe(200);
    });

    it('refuses an admin changing their own role (nobody left to undo it)', async () => {
      const me = await adminOp.request('GET', '/console/api/session');
      const id = (me.body.operator as { operator_id: string }).operator_id;
      const res = await adminOp.request('PATCH', `/admin/v1/operators/${id}`, { role: 'viewer' });
      expect(res.status).toBe(409);
    });
  });

  describe('CSRF', () => {
    it('refuses a state change without the CSRF header, with a wrong one, or from another origin', async () => {
      const path = `/admin/v1/wallets/${m.wallet_id}/credits`;
      const none = await financeA.request('POST', path, { amount: '1.00' }, { csrf: null });
      expect(none.status).toBe(403);
      expect((none.body.error as { code: string }).code).toBe('csrf_failed');
      const other = await financeA.request('POST', path, { amount: '1.00' }, { csrf: financeB.csrf });
      expect(other.status).toBe(403);
      const evil = await financeA.request('POST', path, { amount: '1.00' }, { origin: 'https://evil.example' });
      expect(evil.status).toBe(403);
      const same = await financeA.request('POST', path, { amount: '1.00' }, { origin: new URL(t.url).origin });
      expect(same.status).toBe(200);
    });

    it('still accepts the admin bearer token without any CSRF header (automation)', async () => {
      const res = await admin(t.url, 'POST', `/admin/v1/wallets/${m.wallet_id}/credits`, { amount: '1.00' });
      expect(res.status).toBe(200);
    });
  });

  describe('maker ≠ checker', () => {
    it('holds an operator credit above the threshold until a different operator approves it', async () => {
      const before = (await admin(t.url, 'GET', `/admin/v1/wallets/${m.wallet_id}`)).body.balance as string;
      const made = await financeA.request('POST', `/admin/v1/wallets/${m.wallet_id}/credits`, {
        amount: '2500.00',
        reference: `big-${engine}`,
      });
      expect(made.status).toBe(202);
      expect(made.body).toMatchObject({ status: 'pending', amount: '2500.00', requested_by: email('fin-a') });
      const id = made.body.credit_request_id as string;
      expect(id).toMatch(/^CR[0-9A-HJKMNP-TV-Z]{26}$/);
      expect((await admin(t.url, 'GET', `/admin/v1/wallets/${m.wallet_id}`)).body.balance).toBe(before);

      const pending = await viewer.request('GET', '/admin/v1/credit-requests?status=pending');
      expect((pending.body.data as { credit_request_id: string }[]).map((r) => r.credit_request_id)).toContain(id);

      const self = await financeA.request('POST', `/admin/v1/credit-requests/${id}/approve`);
      expect(self.status).toBe(403);
      expect((self.body.error as { code: string }).code).toBe('same_operator');
      expect((await viewer.request('POST', `/admin/v1/credit-requests/${id}/approve`)).status).toBe(403);

      const approved = await financeB.request('POST', `/admin/v1/credit-requests/${id}/approve`);
      expect(approved.status).toBe(200);
      expect(approved.body).toMatchObject({ status: 'approved', decided_by: email('fin-b') });
      const after = (await admin(t.url, 'GET', `/admin/v1/wallets/${m.wallet_id}`)).body.balance as string;
      expect(Number(after) - Number(before)).toBe(2500);
      expect(approved.body.balance).toBe(after);
      // Once only.
      expect((await adminOp.request('POST', `/admin/v1/credit-requests/${id}/approve`)).status).toBe(409);
    });

    it('does not hold a credit at or below the threshold, nor one made with the admin token', async () => {
      // A wallet fin-a has not credited yet: an operator's direct credits to a wallet are summed over 24 h.
      const fresh = await createMerchant(t.url, 'Threshold Co');
      const at = await financeA.request('POST', `/admin/v1/wallets/${fresh.wallet_id}/credits`, { amount: '1000.00' });
      expect(at.status).toBe(200);
      const token = await admin(t.url, 'POST', `/admin/v1/wallets/${m.wallet_id}/credits`, { amount: '50000.00' });
      expect(token.status).toBe(200);
    });

    it('lets the maker withdraw a request; nothing moves', async () => {
      const made = await financeA.request('POST', `/admin/v1/wallets/${m.wallet_id}/credits`, { amount: '9999.00' });
      const id = made.body.credit_request_id as string;
      const before = (await admin(t.url, 'GET', `/admin/v1/wallets/${m.wallet_id}`)).body.balance;
      expect((await financeA.request('POST', `/admin/v1/credit-requests/${id}/reject`)).status).toBe(200);
      expect((await financeB.request('POST', `/admin/v1/credit-requests/${id}/approve`)).status).toBe(409);
      expect((await admin(t.url, 'GET', `/admin/v1/wallets/${m.wallet_id}`)).body.balance).toBe(before);
    });

    it('refuses a pending request for an unknown wallet with 404', async () => {
      const res = await financeA.request('POST', '/admin/v1/wallets/WL00000000000000000000000000/credits', {
        amount: '5000.00',
      });
      expect(res.status).toBe(404);
    });
  });

  describe('audit log', () => {
    it('records who did what to which target, from where, with the outcome, refusals included', async () => {
      const res = await viewer.request('GET', '/admin/v1/audit?limit=200');
      expect(res.status).toBe(200);
      const entries = res.body.data as Record<string, unknown>[];
      const denied = entries.find(
        (e) => e.actor === email('viewer') && e.action === 'wallet.credit' && e.outcome === 'denied',
      );
      expect(denied).toMatchObject({
        actor_role: 'viewer',
        target: m.wallet_id,
        http_status: 403,
        client_address: '127.0.0.1',
        at: expect.stringMatching(/Z$/),
      });
      const approved = entries.find((e) => e.action === 'credit_request.approve' && e.outcome === 'ok');
      expect(approved).toMatchObject({ actor: email('fin-b'), actor_role: 'finance' });
      const pending = entries.find(
        (e) => e.action === 'wallet.credit' && String(e.detail).includes('waits for approval'),
      );
      expect(pending).toMatchObject({ actor: email('fin-a'), http_status: 202 });
      expect(entries.some((e) => e.actor === 'operator:admin-token' && e.action === 'operator.create')).toBe(true);
      expect(entries.some((e) => e.action === 'session.sign_in' && e.outcome === 'denied')).toBe(true);
      expect(entries.some((e) => e.action === 'session.sign_out' && e.actor === email('viewer'))).toBe(true);
      expect(JSON.stringify(entries)).not.toContain(TEST_PASSWORD);
    });

    it('pages newest first with a cursor', async () => {
      const first = await viewer.request('GET', '/admin/v1/audit?limit=2');
      expect((first.body.data as unknown[]).length).toBe(2);
      expect(first.body.has_more).toBe(true);
      const next = await viewer.request('GET', `/admin/v1/audit?limit=2&cursor=${first.body.next_cursor as string}`);
      const ids = [...(first.body.data as { id: string }[]), ...(next.body.data as { id: string }[])].map((e) =>
        Number(e.id),
      );
      expect(ids).toEqual([...ids].sort((a, b) => b - a));
      expect(new Set(ids).size).toBe(4);
    });

    it('cannot be changed, even by SQL', async () => {
      await expect(t.db.query('DELETE FROM audit_log')).rejects.toThrow(/append-only/);
      await expect(t.db.query(`UPDATE audit_log SET detail = 'rewritten'`)).rejects.toThrow(/append-only/);
    });

    /** The newest entries through the audit API, as the console reads them. */
    const newest = async () => {
      const res = await admin(t.url, 'GET', '/admin/v1/audit?limit=200');
      expect(res.status).toBe(200);
      return res.body.data as Record<string, unknown>[];
    };

    it('records what a role refusal attempted: method, route and the role it needs', async () => {
      expect(
        (await viewer.request('POST', `/admin/v1/wallets/${m.wallet_id}/credits`, { amount: '3.00' })).status,
      ).toBe(403);
      const denied = (await newest()).find(
        (e) => e.actor === email('viewer') && e.action === 'wallet.credit' && e.http_status === 403,
      );
      expect(denied?.detail).toContain('POST /admin/v1/wallets/:wallet_id/credits');
      expect(denied?.detail).toContain('needs the finance role');
      // A read refused for its role is a refusal too.
      expect((await financeA.request('GET', '/admin/v1/operators')).status).toBe(403);
      const read = (await newest()).find((e) => e.actor === email('fin-a') && e.action === 'GET /admin/v1/operators');
      expect(read).toMatchObject({ outcome: 'denied', http_status: 403 });
      expect(read?.detail).toContain('needs the admin role');
    });

    it('records CSRF and cross-origin refusals of operator session requests with what was refused and why', async () => {
      const path = `/admin/v1/wallets/${m.wallet_id}/credits`;
      expect((await financeA.request('POST', path, { amount: '1.00' }, { csrf: null })).status).toBe(403);
      expect((await financeA.request('POST', path, { amount: '1.00' }, { csrf: financeB.csrf })).status).toBe(403);
      expect(
        (await financeA.request('POST', path, { amount: '1.00' }, { origin: 'https://evil.example' })).status,
      ).toBe(403);
      const signIn = await http(t.url, 'POST', '/console/api/session', {
        body: { email: email('viewer'), password: TEST_PASSWORD },
        headers: { 'sec-fetch-site': 'cross-site' },
      });
      expect(signIn.status).toBe(403);
      const s = await ConsoleSession.signIn(t.url, email('viewer'));
      expect((await s.request('DELETE', '/console/api/session', undefined, { csrf: null })).status).toBe(403);

      const entries = await newest();
      const refusals = entries.filter((e) => e.http_status === 403 && e.outcome === 'denied');
      const credit = refusals.filter((e) => e.actor === email('fin-a') && e.action === 'wallet.credit');
      for (const why of ['missing CSRF token', 'wrong CSRF token', 'cross-origin']) {
        expect(
          credit.some((e) => String(e.detail).includes(`POST ${'/admin/v1/wallets/:wallet_id/credits'}: ${why}`)),
        ).toBe(true);
      }
      expect(
        refusals.find((e) => e.action === 'session.sign_in' && String(e.detail).includes('cross-site')),
      ).toMatchObject({ actor: email('viewer') });
      expect(refusals.find((e) => e.action === 'session.sign_out')).toMatchObject({
        actor: email('viewer'),
        detail: expect.stringContaining('DELETE /console/api/session: missing CSRF token'),
      });
      // The refused session was not signed out.
      expect((await s.request('GET', '/console/api/session')).status).toBe(200);
    });

    it('records a failed merchant sign-in under a hash of the API key, never the key or the secret', async () => {
      const wrongSecret = 'Wr0ngSecretKey16';
      const wrong = await http(t.url, 'POST', '/console/api/merchant/session', {
        body: { api_key: ` ${m.api_key}`, secret_key: wrongSecret },
      });
      expect(wrong.status).toBe(401);
      const entries = await newest();
      expect(
        entries.find((e) => e.action === 'merchant.sign_in' && e.http_status === 401 && e.outcome === 'denied'),
      ).toMatchObject({ actor: auditedApiKey(m.api_key), actor_role: 'merchant', client_address: '127.0.0.1' });
      const { rows } = await t.db.query<{ n: bigint }>(
        `SELECT count(*)::int8 AS n FROM audit_log
          WHERE strpos(actor || detail || target || actor_name, $1) > 0 OR strpos(actor || detail || target, $2) > 0
             OR strpos(actor || detail || target, $3) > 0`,
        [m.api_key, wrongSecret, m.secret_key],
      );
      expect(Number(rows[0]?.n)).toBe(0);
    });

    it('records CSRF and cross-origin refusals of merchant session requests', async () => {
      const mine = await ConsoleSession.merchant(t.url, m.api_key, m.secret_key);
      const rotate = await mine.request('POST', '/console/api/merchant/webhook-secret/rotate', undefined, {
        csrf: null,
      });
      expect(rotate.status).toBe(403);
      const signIn = await http(t.url, 'POST', '/console/api/merchant/session', {
        body: { api_key: m.api_key, secret_key: m.secret_key },
        headers: { origin: 'https://evil.example' },
      });
      expect(signIn.status).toBe(403);
      const entries = await newest();
      expect(entries.find((e) => e.action === 'merchant.webhook_secret.rotate' && e.http_status === 403)).toMatchObject(
        {
          actor: `merchant:${m.merchant_id}`,
          outcome: 'denied',
          detail: expect.stringContaining('POST /console/api/merchant/webhook-secret/rotate: missing CSRF token'),
        },
      );
      expect(entries.find((e) => e.action === 'merchant.sign_in' && e.http_status === 403)).toMatchObject({
        actor: auditedApiKey(m.api_key),
        outcome: 'denied',
        detail: expect.stringContaining('POST /console/api/merchant/session: cross-origin'),
      });
    });
  });
});
