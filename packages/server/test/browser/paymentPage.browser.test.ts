import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initiateOk, party, simulate, status, walletBalance, type Party } from '../support/collectionFixtures.ts';
import { CHROMIUM, launchBrowser } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';

/**
 * The hosted payment page in a real browser: Debian's chromium driven by playwright-core (never a downloaded
 * browser), at a 360 × 740 phone viewport. Without chromium the file is skipped, except in CI (CI=1), where a
 * missing browser fails.
 */
const ARTIFACTS = fileURLToPath(new URL('../../../../test-artifacts/', import.meta.url));
const hasChromium = existsSync(CHROMIUM);

if (!hasChromium && !process.env.CI) {
  console.warn(`payment page browser test skipped: no chromium at ${CHROMIUM} (apt-get install -y chromium)`);
}

describe.runIf(!hasChromium && process.env.CI)('payment page in a browser (CI)', () => {
  it('needs chromium', () => {
    expect.fail(`chromium is missing at ${CHROMIUM}: .ci/run installs it (apt-get install -y chromium)`);
  });
});

describe.runIf(hasChromium)('payment page in chromium at 360 × 740', () => {
  let t: TestServer;
  let p: Party;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let context: BrowserContext;
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    t = await startTestServer('pglite');
    p = await party(t.url, 'v2', 'Chai Point');
    await mkdir(ARTIFACTS, { recursive: true });
    browser = await launchBrowser({ width: 360, height: 740 });
    context = browser.context;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const open = async (url: string): Promise<Page> => {
    const page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(e.message));
    const res = await page.goto(url);
    expect(res?.status()).toBe(200);
    return page;
  };

  it('shows payee, amount, QR and app button, fits the phone, and the success button settles it', async () => {
    const c = await initiateOk(p.client, { requestAmount: '249.99', amount: undefined, remarks: 'Order 77' });
    const paymentUrl = c.paymentUrl as string;
    expect(paymentUrl.startsWith(`${t.url}/pay/`)).toBe(true);
    const page = await open(paymentUrl);

    await expect(page.title()).resolves.toContain('249.99');
    await page.getByRole('heading', { name: 'Chai Point' }).waitFor();
    const text = await page.locator('main').innerText();
    expect(text).toContain('₹249.99');
    expect(text).toContain('Order 77');
    const qr = page.getByRole('img', { name: /QR code/ });
    expect(await qr.isVisible()).toBe(true);
    const box = await qr.boundingBox();
    expect(box?.width).toBeGreaterThanOrEqual(150);
    const app = page.getByRole('link', { name: 'Open UPI app' });
    expect(await app.getAttribute('href')).toBe(c.intentUrl);
    const badge = page.getByRole('status');
    expect(await badge.innerText()).toBe('Waiting for payment');
    // Nothing sticks out sideways on a 360-pixel screen.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    await page.screenshot({ path: join(ARTIFACTS, 'payment-page-initiated.png'), fullPage: true });

    // Keyboard only: focus the labelled button and press Enter.
    const success = page.getByRole('button', { name: 'Simulate success' });
    await success.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Payment received' }).waitFor({ timeout: 15_000 });
    expect(await app.isVisible()).toBe(false);
    expect(await success.isVisible()).toBe(false);
    await page.screenshot({ path: join(ARTIFACTS, 'payment-page-success.png'), fullPage: true });

    const after = await status(p.client, { txnId: c.txnId });
    expect(after.data?.status).toBe('SUCCESS');
    expect(await walletBalance(p.client)).toBe('249.99');
    expect(consoleErrors, consoleErrors.join('\n')).toEqual([]);
    await page.close();
  });

  it('updates the status by itself when the outcome arrives from elsewhere', async () => {
    const c = await initiateOk(p.client, { requestAmount: '10.00', amount: undefined });
    const page = await open(c.paymentUrl as string);
    expect(await page.getByRole('status').innerText()).toBe('Waiting for payment');
    expect((await simulate(p.client, c.txnId, 'FAILED')).body.respCode).toBe(2000);
    // No reload: the page polls its status JSON.
    await page.getByRole('status').filter({ hasText: 'Payment failed' }).waitFor({ timeout: 15_000 });
    await page.screenshot({ path: join(ARTIFACTS, 'payment-page-failed.png'), fullPage: true });
    expect(consoleErrors, consoleErrors.join('\n')).toEqual([]);
    await page.close();
  });

  it('answers an unknown link with a 404 page', async () => {
    const page = await context.newPage();
    const res = await page.goto(`${t.url}/pay/${'A'.repeat(32)}`);
    expect(res?.status()).toBe(404);
    await page.getByRole('heading', { name: 'Payment link not found' }).waitFor();
    await page.close();
  });
});
