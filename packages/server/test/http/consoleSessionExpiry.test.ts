import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleSession, createOperator } from '../support/consoleClient.ts';
import { http } from '../support/merchantClient.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';

/** A console session that expires stops working on the server, whatever the browser keeps. */
describe('console session expiry', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer('pglite', {
      env: { PAYRAIL_CONSOLE_SESSION_TTL: '1500ms', PAYRAIL_CONSOLE_SIGNIN_FAILURES: '4' },
    });
    await createOperator(t.url, 'short@example.test', 'viewer');
  }, 180_000);
  afterAll(() => t.close());

  it('refuses the cookie after the session lifetime', async () => {
    const s = await ConsoleSession.signIn(t.url, 'short@example.test');
    expect(s.setCookie).toMatch(/Max-Age=(1|2);/);
    expect((await s.request('GET', '/admin/v1/stats')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1700));
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
});
