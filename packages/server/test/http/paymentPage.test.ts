import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import {
  initiateOk,
  party,
  setMerchant,
  simulate,
  status,
  walletBalance,
  type Party,
} from '../support/collectionFixtures.ts';
import { http } from '../support/merchantClient.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

/** The hosted payment page (`paymentUrl`, docs/operator/console.md) over real HTTP, in the sandbox, PAYRAIL_PUBLIC_URL unset. */
describe.each(ENGINES)('payment page on %s', (engine) => {
  let t: TestServer;
  let p: Party;
  let c: Awaited<ReturnType<typeof initiateOk>>;
  const logLines: string[] = [];
  const logSink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logLines.push(chunk.toString('utf8'));
      callback();
    },
  });

  beforeAll(async () => {
    t = await startTestServer(engine, { env: { LOG_LEVEL: 'info' }, logger: createLogger('info', logSink) });
    p = await party(t.url, 'v2', 'Plain Name');
    // Markup in the names and remarks must come out as text.
    await setMerchant(t.url, p.merchant.merchant_id, { upi_payee_name: 'Chai <b>&</b> "Co"' });
    c = await initiateOk(p.client, { amount: '250.50', remarks: '<script>alert(1)</script> & tip' });
  });
  afterAll(() => t.close());

  const tokenOf = (paymentUrl: unknown) => new URL(paymentUrl as string).pathname.split('/')[2] as string;
  const page = async (path: string) => {
    const res = await fetch(t.url + path);
    return { status: res.status, headers: res.headers, html: await res.text() };
  };

  it('defaults the link base to the listen address (PAYRAIL_PUBLIC_URL unset)', () => {
    expect(c.paymentUrl).toMatch(new RegExp(`^${t.url}/pay/[A-Za-z0-9_-]{32}$`));
  });

  it('renders payee, amount, QR, the UPI app button and the status, text escaped', async () => {
    const res = await page(new URL(c.paymentUrl as string).pathname);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    // Every '<', '&' and '"' of data is escaped, so no tag or attribute can start ('>' alone needs no escape).
    const text = res.html.replace(/&gt;/g, '>');
    expect(text).toContain('Chai &lt;b>&amp;&lt;/b> &quot;Co&quot;');
    expect(res.html).not.toContain('<b>&</b>');
    expect(res.html).toContain('₹250.50');
    expect(text).toContain('&lt;script>alert(1)&lt;/script> &amp; tip');
    expect(res.html).not.toContain('<script>alert(1)');
    expect(res.html).toMatch(/<svg [^>]*role="img"[^>]*aria-label="QR code/);
    const href = /<a class="btn btn-primary" href="([^"]+)">Open UPI app<\/a>/.exec(res.html)?.[1];
    expect(
      href
        ?.replace(/&amp;/g, '&')
        .replace(/&#39;/g, "'")
        .replace(/&quot;/g, '"'),
    ).toBe(c.intentUrl);
    expect(res.html).toContain('role="status"');
    expect(res.html).toContain('Waiting for payment');
    expect(res.html).toContain('name="viewport" content="width=device-width, initial-scale=1"');
    // Sandbox: the two labelled buttons.
    expect(res.html).toMatch(/<button type="button"[^>]*>Simulate success<\/button>/);
    expect(res.html).toMatch(/<button type="button"[^>]*>Simulate failure<\/button>/);
  });

  it('loads nothing from elsewhere: strict CSP with a per-answer nonce on every style and script', async () => {
    const path = new URL(c.paymentUrl as string).pathname;
    const [a, b] = [await page(path), await page(path)];
    const csp = a.headers.get('content-security-policy') as string;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(b.headers.get('content-security-policy')).not.toContain(nonce);
    const tags = a.html.match(/<(script|style)\b[^>]*>/g) ?? [];
    expect(tags.length).toBeGreaterThanOrEqual(2);
    for (const tag of tags) expect(tag).toContain(`nonce="${nonce}"`);
    expect(a.html).not.toMatch(/\b(src|href)="(https?:)?\/\//);
    expect(a.html).not.toMatch(/<link\b(?![^>]*href="data:)/);
    expect(a.headers.get('cache-control')).toBe('no-store');
    expect(a.headers.get('x-content-type-options')).toBe('nosniff');
    expect(a.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('answers an unknown or malformed link with a 404 HTML page', async () => {
    for (const token of ['A'.repeat(32), 'short', c.txnId, `${tokenOf(c.paymentUrl)}x`, 'a.b']) {
      const res = await page(`/pay/${token}`);
      expect(res.status, token).toBe(404);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.html).toContain('Payment link not found');
      expect(res.html).not.toContain('₹');
    }
  });

  it('serves a status JSON that reveals only what the page shows', async () => {
    const token = tokenOf(c.paymentUrl);
    const res = await http(t.url, 'GET', `/pay/${token}/status`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'INITIATED', label: 'Waiting for payment', final: false });
    expect(res.headers.get('cache-control')).toBe('no-store');
    const unknown = await http(t.url, 'GET', `/pay/${'B'.repeat(32)}/status`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
  });

  it('follows the collection: PENDING then SUCCESS through the merchant API', async () => {
    const d = await initiateOk(p.client, { amount: '5.00' });
    const token = tokenOf(d.paymentUrl);
    await simulate(p.client, d.txnId, 'PENDING');
    expect((await http(t.url, 'GET', `/pay/${token}/status`)).body).toEqual({
      status: 'PENDING',
      label: 'Payment under review',
      final: false,
    });
    await simulate(p.client, d.txnId, 'SUCCESS');
    expect((await http(t.url, 'GET', `/pay/${token}/status`)).body).toMatchObject({ status: 'SUCCESS', final: true });
    expect((await page(`/pay/${token}`)).html).toContain('data-state="SUCCESS"');
  });

  describe('sandbox buttons (POST /pay/{token}/simulate)', () => {
    it('settle the collection through the same path as the simulate route: credited once, then final', async () => {
      const q = await party(t.url, 'v1', 'Buttons');
      const d = await initiateOk(q.client, { amount: '40.00' });
      const token = tokenOf(d.paymentUrl);
      const ok = await http(t.url, 'POST', `/pay/${token}/simulate`, { body: { outcome: 'SUCCESS' } });
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ status: 'SUCCESS', label: 'Payment received', final: true });
      expect((await status(q.client, { txnId: d.txnId })).data).toMatchObject({ status: 'SUCCESS' });
      expect(await walletBalance(q.client)).toBe('40.00');
      // The same outcome again changes nothing; the other one is refused like the simulate route refuses it.
      expect((await http(t.url, 'POST', `/pay/${token}/simulate`, { body: { outcome: 'SUCCESS' } })).status).toBe(200);
      const late = await http(t.url, 'POST', `/pay/${token}/simulate`, { body: { outcome: 'FAILED' } });
      expect(late.status).toBe(409);
      expect(late.body).toEqual({ error: { code: '4113', message: expect.stringContaining('SUCCESS') } });
      expect(await walletBalance(q.client)).toBe('40.00');
    });

    it('refuse what is not a JSON SUCCESS or FAILED, and unknown links', async () => {
      const d = await initiateOk(p.client, { amount: '3.00' });
      const token = tokenOf(d.paymentUrl);
      for (const outcome of ['PENDING', 'success', 1]) {
        const res = await http(t.url, 'POST', `/pay/${token}/simulate`, { body: { outcome } });
        expect(res.status, String(outcome)).toBe(400);
      }
      // A cross-site form cannot send JSON: a form body is refused (400 or 415, whichever the parser answers).
      const form = await http(t.url, 'POST', `/pay/${token}/simulate`, {
        rawBody: 'outcome=SUCCESS',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect([400, 415]).toContain(form.status);
      const unknown = await http(t.url, 'POST', `/pay/${'C'.repeat(32)}/simulate`, { body: { outcome: 'SUCCESS' } });
      expect(unknown.status).toBe(404);
      expect((await status(p.client, { txnId: d.txnId })).data?.status).toBe('INITIATED');
    });
  });

  it('keeps page keys out of the logs (the link is the page’s only permission)', () => {
    const text = logLines.join('');
    expect(text).toContain('/pay/[redacted]');
    expect(text).not.toMatch(/\/pay\/[A-Za-z0-9_-]{32}/);
    expect(text).not.toContain(tokenOf(c.paymentUrl));
  });
});
