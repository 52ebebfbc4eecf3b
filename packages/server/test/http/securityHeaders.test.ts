import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCookieNames } from '../../src/http/consoleCookies.ts';
import { initiateOk } from '../support/collectionFixtures.ts';
import { CHROMIUM, launchBrowser } from '../support/browser.ts';
import { ConsoleSession, createOperator } from '../support/consoleClient.ts';
import {
  admin,
  createMerchant,
  http,
  MerchantClient,
  type HttpResult,
  type TestMerchant,
} from '../support/merchantClient.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';

/**
 * The response headers of a server whose public address is https: HSTS on every answer, never cached and never
 * content-sniffed when authenticated (admin, console, merchant; at the root and under /api), the API docs and the
 * pages never framed, and the console's session cookies under `__Host-` names (Secure, Path=/, no Domain), which
 * a sibling subdomain or an http page cannot set or overwrite.
 */
describe('security headers behind an https public address', () => {
  let t: TestServer;
  let m: TestMerchant;
  let operator: ConsoleSession;

  beforeAll(async () => {
    t = await startTestServer('pglite', { env: { PAYRAIL_PUBLIC_URL: 'https://payrail.example' } });
    m = await createMerchant(t.url, 'Headers Co', '1000.00');
    await createOperator(t.url, 'headers@example.test', 'viewer');
    operator = await ConsoleSession.signIn(t.url, 'headers@example.test');
  }, 180_000);
  // Twice on a loaded machine (load 20+) this close outlasted the 60 s hook limit after every test had passed; not
  // reproduced alone (20 s for the whole file). Noted for the next session; the longer limit keeps CI from failing on it.
  afterAll(() => t.close(), 150_000);

  const header = (res: HttpResult | Response, name: string) => res.headers.get(name) ?? '';
  const expectPrivate = (res: HttpResult | Response, what: string) => {
    expect(header(res, 'cache-control'), what).toBe('no-store');
    expect(header(res, 'x-content-type-options'), what).toBe('nosniff');
    expect(header(res, 'strict-transport-security'), what).toMatch(/^max-age=\d{8,}/);
  };

  it('sends HSTS on every answer, authenticated or not', async () => {
    for (const path of ['/health', '/console', '/docs', '/openapi.json', '/no/such/route']) {
      const res = await fetch(`${t.url}${path}`);
      expect(header(res, 'strict-transport-security'), path).toMatch(/^max-age=31536000/);
    }
  });

  it('never lets an admin answer be cached or sniffed, refusals included', async () => {
    expectPrivate(await admin(t.url, 'GET', '/admin/v1/merchants'), 'admin list');
    expectPrivate(await admin(t.url, 'GET', `/admin/v1/merchants/${m.merchant_id}`), 'admin merchant');
    const refused = await http(t.url, 'GET', '/admin/v1/merchants', { headers: { authorization: 'Bearer nope' } });
    expect(refused.status).toBe(401);
    expectPrivate(refused, 'admin 401');
  });

  it('never lets a console answer be cached or sniffed (operator and merchant sessions)', async () => {
    const me = await operator.request('GET', '/console/api/session');
    expect(me.status).toBe(200);
    expectPrivate(me, 'console session');
    const overview = await operator.request('GET', '/admin/v1/merchants');
    expect(overview.status).toBe(200);
    expectPrivate(overview, 'console admin read');
    const merchant = await ConsoleSession.merchant(t.url, m.api_key, m.secret_key);
    const mine = await merchant.request('GET', '/console/api/merchant/session');
    expect(mine.status).toBe(200);
    expectPrivate(mine, 'merchant console');
    expectPrivate(await http(t.url, 'GET', '/console/api/session'), 'console 401');
  });

  it('never lets a merchant token or merchant API answer be cached or sniffed, at the root and under /api', async () => {
    for (const path of ['/v1/auth/client-token', '/api/v1/auth/client-token']) {
      const res = await http(t.url, 'POST', path, { body: { apiKey: m.api_key, secretKey: m.secret_key } });
      expect(res.body.respCode, path).toBe(2000);
      expectPrivate(res, path);
    }
    const client = await MerchantClient.connect(t.url, m, 'v2');
    for (const path of ['/payout/v1/balance', '/api/payout/v1/balance']) {
      const res = await http(t.url, 'GET', `${path}?wallet_id=${m.wallet_id}`, { headers: client.auth() });
      expect(res.body.resp_code, path).toBe(2000);
      expectPrivate(res, path);
    }
    const wrong = await http(t.url, 'POST', '/v1/auth/client-token', { body: { apiKey: m.api_key, secretKey: 'x' } });
    expectPrivate(wrong, 'token refused');
  });

  it('does not let /docs, the console or the payment page be framed', async () => {
    const docs = await fetch(`${t.url}/docs`);
    expect(docs.status).toBe(200);
    expect(header(docs, 'content-security-policy')).toContain("frame-ancestors 'none'");
    expect(header(docs, 'x-frame-options')).toBe('DENY');
    const bundle = await fetch(`${t.url}/docs/static/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect(header(bundle, 'content-security-policy')).toContain("frame-ancestors 'none'");

    const page = await fetch(`${t.url}/console`);
    expect(header(page, 'content-security-policy')).toContain("frame-ancestors 'none'");
    expect(header(page, 'content-security-policy')).toContain("script-src 'self'");

    const client = await MerchantClient.connect(t.url, m, 'v2');
    const c = await initiateOk(client, { amount: '10.00' });
    const pay = await fetch(`${t.url}${new URL(c.paymentUrl as string).pathname}`);
    expect(pay.status).toBe(200);
    expect(header(pay, 'content-security-policy')).toMatch(/script-src 'nonce-[^']+'/);
    expect(header(pay, 'content-security-policy')).toContain("frame-ancestors 'none'");
    expect(header(pay, 'cache-control')).toBe('no-store');
    // A JSON answer is no document: it loads nothing and is framed nowhere.
    expect(header(await fetch(`${t.url}/health`), 'content-security-policy')).toContain("default-src 'none'");
  });

  it('names the console cookies __Host- (Secure, Path=/, no Domain), and only those open a session', async () => {
    expect(operator.setCookie).toMatch(/^__Host-payrail_op=[A-Za-z0-9_-]{43}; /);
    const merchant = await ConsoleSession.merchant(t.url, m.api_key, m.secret_key);
    expect(merchant.setCookie).toMatch(/^__Host-payrail_mc=[A-Za-z0-9_-]{43}; /);
    for (const cookie of [operator.setCookie, merchant.setCookie]) {
      expect(cookie).toContain('; Secure');
      expect(cookie).toContain('; Path=/');
      expect(cookie).not.toMatch(/Domain=/i);
    }
    // The same session under the plain name, as a page on http or a sibling subdomain could plant it: refused.
    const token = operator.cookie.split('=')[1] as string;
    const plain = await http(t.url, 'GET', '/console/api/session', { headers: { cookie: `payrail_op=${token}` } });
    expect(plain.status).toBe(401);
    const out = await new ConsoleSession(t.url, merchant.cookie, merchant.csrf, '').request(
      'DELETE',
      '/console/api/merchant/session',
    );
    expect(header(out, 'set-cookie')).toMatch(/^__Host-payrail_mc=; .*Max-Age=0.*Secure/);
  });

  it('keeps the plain cookie names when the public address is http (no Secure, so no __Host-)', () => {
    expect(consoleCookieNames(false)).toEqual({ operator: 'payrail_op', merchant: 'payrail_mc' });
    expect(consoleCookieNames(true)).toEqual({ operator: '__Host-payrail_op', merchant: '__Host-payrail_mc' });
  });

  it.runIf(existsSync(CHROMIUM))('renders Swagger UI at /docs under its policy, with no violation', async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.context.newPage();
      const errors: string[] = [];
      page.on('console', (msg) => {
        if (msg.type() === 'error') errors.push(msg.text());
      });
      page.on('pageerror', (e) => errors.push(e.message));
      expect((await page.goto(`${t.url}/docs`))?.status()).toBe(200);
      await page.locator('.swagger-ui .info .title').filter({ hasText: 'Payrail API' }).waitFor();
      const operation = page.locator('.opblock').first();
      await operation.locator('.opblock-summary').click();
      await operation.locator('.opblock-body').waitFor();
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
