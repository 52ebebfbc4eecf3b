import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleSession, createOperator, TEST_PASSWORD } from '../support/consoleClient.ts';
import { admin, createMerchant, http } from '../support/merchantClient.ts';
import { movableClock } from '../support/testClock.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';

/** A console session that expires stops working on the server, whatever the browser keeps. */
describe('console session expiry', () => {
  let t: TestServer;
  /** The server's clock: moved past a session's lifetime instead of waiting for it. */
  const clock = movableClock();
  beforeAll(async () => {
    t = await startTestServer('pglite', {
      clock,
      // Per account: half of 4. X-Forwarded-For names the client, so a test can sign in from many addresses.
      env: {
        PAYRAIL_CONSOLE_SESSION_TTL: '1500ms',
        PAYRAIL_CONSOLE_SIGNIN_FAILURES: '4',
        PAYRAIL_TRUST_PROXY: 'loopback',
      },
    });
    await createOperator(t.url, 'short@example.test', 'viewer');
  }, 180_000);
  afterAll(() => t.close());

  it('refuses the cookie after the session lifetime', async () => {
    const s = await ConsoleSession.signIn(t.url, 'short@example.test');
    expect(s.setCookie).toMatch(/Max-Age=(1|2);/);
    expect((await s.request('GET', '/admin/v1/stats')).status).toBe(200);
    clock.advance(1700);
    const late = await s.request('GET', '/admin/v1/stats');
    expect(late.status).toBe(401);
    expect((await s.request('GET', '/console/api/session')).status).toBe(401);
  });

  it('throttles failed sign-ins per account and per address with 429', async () => {
    const attempt = (email: string) =>
      http(t.url, 'POST', '/console/api/session', { body: { email, password: 'wrong password' } });
    expect((await attempt('short@example.test')).status).toBe(401);
    expect((await attempt('short@example.test')).status).toBe(401);
    const third = await attempt('short@example.test');
    expect(third.status).toBe(429);
    expect(third.body).toEqual({ error: { code: 'too_many_attempts', message: expect.any(String) } });
    expect((await attempt('other@example.test')).status).toBe(401);
    expect((await attempt('third@example.test')).status).toBe(401);
    expect((await attempt('fourth@example.test')).status).toBe(429);
  });

  describe('every spelling of one account is that account (F1)', () => {
    const PER_ACCOUNT = 2;
    /** Fullwidth forms (U+FF01…U+FF5E) of printable ASCII, which NFKC folds back. */
    const fullwidth = (s: string) => s.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));
    const from = (address: string) => ({ 'x-forwarded-for': address });

    it('binds the per-account limit on operator e-mail spelled with spaces, capitals or fullwidth forms', async () => {
      await createOperator(t.url, 'bf1@x.test', 'viewer');
      const signIn = (email: string, address: string, password = 'wrong password') =>
        http(t.url, 'POST', '/console/api/session', { body: { email, password }, headers: from(address) });
      const spellings = [' BF1@x.test', 'bf1@x.TEST ', fullwidth('Bf1@X.test')];
      // Each failure from a different address, so only the account's counter can refuse.
      for (let i = 0; i < PER_ACCOUNT; i++) {
        expect((await signIn(spellings[i] as string, `198.51.100.${i + 1}`)).status).toBe(401);
      }
      const over = await signIn(spellings[PER_ACCOUNT] as string, '198.51.100.9');
      expect(over.status).toBe(429);
      expect(over.body).toEqual({ error: { code: 'too_many_attempts', message: expect.any(String) } });
      // Even the right password in yet another spelling: the account is throttled, not the spelling.
      expect((await signIn('\u3000bf1@x.test', '198.51.100.10', TEST_PASSWORD)).status).toBe(429);
    });

    it('signs an operator in with a spelling variant of the address when not throttled', async () => {
      await createOperator(t.url, 'variant@x.test', 'viewer');
      const res = await http(t.url, 'POST', '/console/api/session', {
        body: { email: `\u00a0${fullwidth('Variant')}@X.TEST `, password: TEST_PASSWORD },
        headers: from('198.51.100.20'),
      });
      expect(res.status).toBe(200);
      expect(res.body.operator).toMatchObject({ email: 'variant@x.test' });
    });

    it('stores a new operator under the normalised address: a fullwidth twin is the same account', async () => {
      const twin = await admin(t.url, 'POST', '/admin/v1/operators', {
        email: ` ${fullwidth('VARIANT@x.test')}`,
        role: 'admin',
        password: TEST_PASSWORD,
      });
      expect(twin.status).toBe(409);
      const created = await admin(t.url, 'POST', '/admin/v1/operators', {
        email: ` Mixed.${fullwidth('Case')}@X.test`,
        role: 'viewer',
        password: TEST_PASSWORD,
      });
      expect(created.status).toBe(201);
      expect(created.body.email).toBe('mixed.case@x.test');
    });

    it('finds an operator stored in mixed case before addresses were normalised', async () => {
      const id = await createOperator(t.url, 'legacy@x.test', 'viewer');
      await t.db.query(`UPDATE operators SET email = 'Legacy@X.Test' WHERE id = $1`, [id]);
      const res = await http(t.url, 'POST', '/console/api/session', {
        body: { email: ' LEGACY@x.test', password: TEST_PASSWORD },
        headers: from('198.51.100.21'),
      });
      expect(res.status).toBe(200);
    });

    it('binds the per-account limit on a merchant API key spelled with spaces or fullwidth forms', async () => {
      const m = await createMerchant(t.url, 'Spelled Co');
      const signIn = (apiKey: string, address: string, secretKey = 'x'.repeat(16)) =>
        http(t.url, 'POST', '/console/api/merchant/session', {
          body: { api_key: apiKey, secret_key: secretKey },
          headers: from(address),
        });
      const spellings = [` ${m.api_key}`, `${m.api_key} `, fullwidth(m.api_key)];
      for (let i = 0; i < PER_ACCOUNT; i++) {
        expect((await signIn(spellings[i] as string, `198.51.100.${30 + i}`)).status).toBe(401);
      }
      expect((await signIn(spellings[PER_ACCOUNT] as string, '198.51.100.39')).status).toBe(429);
      expect((await signIn(`\t${m.api_key}`, '198.51.100.40', m.secret_key)).status).toBe(429);
    });

    it('signs a merchant in with a spelling variant of its API key when not throttled', async () => {
      const m = await createMerchant(t.url, 'Variant Co');
      const res = await http(t.url, 'POST', '/console/api/merchant/session', {
        body: { api_key: `\u3000${fullwidth(m.api_key.slice(0, 8))}${m.api_key.slice(8)} `, secret_key: m.secret_key },
        headers: from('198.51.100.41'),
      });
      expect(res.status).toBe(200);
      expect(res.body.merchant).toMatchObject({ merchant_id: m.merchant_id });
    });
  });
});
