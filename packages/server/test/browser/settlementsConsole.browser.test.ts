import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, CHROMIUM, launchBrowser } from '../support/browser.ts';
import { initiateOk, party, simulate, type Party } from '../support/collectionFixtures.ts';
import { createOperator, TEST_PASSWORD } from '../support/consoleClient.ts';
import { admin } from '../support/merchantClient.ts';
import { SANDBOX } from '../support/payoutFixtures.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';
import { eventually } from '../support/webhookReceiver.ts';

/**
 * Settlements in the console (docs/operator/console.md, docs/merchant/settlements.md) in Debian's chromium driven by
 * playwright-core: a finance operator sets a merchant's settlement account on its page, settles its wallet of two
 * successful collections, finds the settlement in the list, opens it (the payout that paid it, the collections with
 * amount, fee, GST and net) and downloads its CSV report; a viewer is offered no form; the merchant sees its
 * settlement and its account, changes the account and sees it held for 24 hours. Every page fits 1280 and 360 px.
 */
const hasChromium = existsSync(CHROMIUM);

if (!hasChromium && !process.env.CI) {
  console.warn(`settlements console browser test skipped: no chromium at ${CHROMIUM} (apt-get install -y chromium)`);
}

describe.runIf(!hasChromium && process.env.CI)('settlements console in a browser (CI)', () => {
  it('needs chromium', () => {
    expect.fail(`chromium is missing at ${CHROMIUM}: .ci/run installs it (apt-get install -y chromium)`);
  });
});

/** UPI collections cost ₹2.00 + 18% GST (₹0.36). */
const PLAN = { name: 'Collect', rules: { UPI_COLLECTION: { slabs: [{ flat: '2.00' }] } } };

describe.runIf(hasChromium)('settlements in the console (chromium)', { timeout: 120_000 }, () => {
  let t: TestServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let shop: Party;
  const collections: string[] = [];
  let settlementId = '';
  const pageErrors: string[] = [];

  beforeAll(async () => {
    t = await startTestServer('pglite', { env: { PAYRAIL_SETTLEMENT_SCAN_MS: '3600000' } });
    shop = await party(t.url, 'v2', 'Settling Shop');
    expect((await admin(t.url, 'PUT', `/admin/v1/merchants/${shop.merchant.merchant_id}/pricing`, PLAN)).status).toBe(
      200,
    );
    for (const amount of ['100.00', '50.00']) {
      const c = await initiateOk(shop.client, { amount });
      expect((await simulate(shop.client, c.txnId, 'SUCCESS')).body.respCode).toBe(2000);
      collections.push(c.txnId);
    }
    await Promise.all([
      createOperator(t.url, 'finance@example.test', 'finance'),
      createOperator(t.url, 'viewer@example.test', 'viewer'),
    ]);
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const signIn = async (email: string) => {
    await browser.context.clearCookies();
    await page.goto(`${t.url}/console`);
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  };
  const go = async (hash: string, heading: string | RegExp) => {
    await page.goto(`${t.url}/console${hash}`);
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  };
  /** The text of every row of the table with this caption, cells joined by ` | `. */
  const rows = (caption: string) =>
    page
      .locator('table', { has: page.locator('caption', { hasText: caption }) })
      .locator('tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) =>
          Array.from(tr.querySelectorAll('td, th'))
            .map((c) => (c.textContent ?? '').replace(/\s+/g, ' ').trim())
            .join(' | '),
        ),
      );
  /** The page is no wider than the window at 1280 and 360 pixels (tables scroll inside their card). */
  const expectFits = async (name: string) => {
    for (const [width, height] of [
      [1280, 860],
      [360, 740],
    ] as const) {
      await page.setViewportSize({ width, height });
      const sizes = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, vw: window.innerWidth }));
      expect(sizes.page, `${name} at ${width} px`).toBeLessThanOrEqual(sizes.vw);
      await page.screenshot({ path: join(ARTIFACTS, `${name}-${width}.png`), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 860 });
  };
  const settlement = () => page.getByTestId('merchant-settlement');

  it('finance sets the settlement account on the merchant page and settles the wallet now', async () => {
    await signIn('finance@example.test');
    await go(`#/merchants/${shop.merchant.merchant_id}`, /^Merchant /);
    await settlement().getByTestId('settlement-none').waitFor();
    // Settling without an account is refused, and says why.
    await settlement().getByRole('button', { name: 'Settle now' }).click();
    await settlement()
      .getByText(/No active settlement account/)
      .waitFor();

    await settlement().getByLabel('Account number').fill(SANDBOX.success);
    await settlement().getByLabel('IFSC').fill(SANDBOX.ifsc.toLowerCase());
    await settlement().getByLabel('Account holder').fill('Settling Shop Pvt Ltd');
    await settlement().getByLabel('Schedule').selectOption('daily');
    await settlement().getByLabel('Daily at (IST)').fill('11:30');
    await settlement().getByRole('button', { name: 'Save settlement account' }).click();
    await settlement().getByText('Settlement account saved.').waitFor();
    const facts = settlement().getByTestId('settlement-account');
    await facts.getByText('Settling Shop Pvt Ltd').waitFor();
    expect(await settlement().getByTestId('settlement-account-number').innerText()).toBe(SANDBOX.success);
    expect(await settlement().getByTestId('settlement-schedule').innerText()).toBe('daily at 11:30 IST');
    expect(await settlement().getByTestId('settlement-reserve').innerText()).toBe('none');
    // The first account holds nothing.
    expect(await settlement().getByTestId('settlement-active').innerText()).toMatch(/^since /);
    await expectFits('merchant-settlement');

    await settlement().getByLabel('Wallet').selectOption(shop.merchant.wallet_id);
    await settlement().getByRole('button', { name: 'Settle now' }).click();
    const opened = settlement().getByText(/opened \(2 collections\)/);
    await opened.waitFor();
    // 100 − 2.36 + 50 − 2.36
    expect(await opened.innerText()).toContain('₹145.28');
    settlementId = (await settlement().getByRole('link', { name: /^ST/ }).innerText()) as string;
    expect(settlementId).toMatch(/^ST[0-9A-Z]{26}$/);
    // The wallet's balance on the page follows.
    await eventually(async () =>
      (await rows('Wallets')).some((r) => r.includes(shop.merchant.wallet_id.slice(0, 6)) && r.endsWith('₹0.00')),
    );
  });

  it('lists the settlement and opens it: its payout, its collections, its CSV report', async () => {
    await page.getByRole('link', { name: 'Settlements', exact: true }).click();
    await page.getByRole('heading', { name: 'Settlements', level: 1 }).waitFor();
    await page.getByLabel('Merchant ID').fill(shop.merchant.merchant_id);
    await page.getByRole('button', { name: 'Apply' }).click();
    await eventually(
      async () =>
        (await rows('Settlements')).length === 1 && !(await rows('Settlements'))[0]?.includes('No settlements'),
    );
    const [row] = await rows('Settlements');
    expect(row).toContain('| ₹145.28 | ₹4.00 | ₹0.72 |');
    expect(row).toContain('| manual |');
    await expectFits('settlements');

    await page.getByRole('link', { name: settlementId }).click();
    await page.getByRole('heading', { name: 'Settlement', level: 1 }).waitFor();
    expect(await page.getByTestId('settlement-amount').innerText()).toBe('₹145.28');
    expect(await page.getByTestId('settlement-fees').innerText()).toBe('₹4.00');
    expect(await page.getByTestId('settlement-tax').innerText()).toBe('₹0.72');
    expect(await rows('Collections of this settlement')).toEqual([
      expect.stringMatching(/ \| ₹100\.00 \| ₹2\.00 \| ₹0\.36 \| ₹97\.64$/),
      expect.stringMatching(/ \| ₹50\.00 \| ₹2\.00 \| ₹0\.36 \| ₹47\.64$/),
    ]);
    await expectFits('settlement');

    // The report, downloaded as the browser does with the operator's session.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download report (CSV)' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`settlement-${settlementId}.csv`);
    const csv = await readFile((await download.path()) as string, 'utf8');
    expect(csv.split('\r\n')).toEqual([
      'settlement_id,collection_id,amount,fee,gst,net',
      `${settlementId},${collections[0]},100.00,2.00,0.36,97.64`,
      `${settlementId},${collections[1]},50.00,2.00,0.36,47.64`,
      '',
    ]);

    // The payout that paid it: an ordinary payout with the settlement as its sender id.
    const payoutLink = page.getByTestId('settlement-payout').getByRole('link', { name: /^PT/ });
    const payoutHref = (await payoutLink.getAttribute('href')) as string;
    expect(payoutHref).toMatch(/^#\/payouts\/PT[0-9A-Z]{26}$/);
    await payoutLink.click();
    await page.getByRole('heading', { name: 'Payout', level: 1 }).waitFor();
    expect(page.url()).toContain(payoutHref);
    await page.getByTestId('payout-facts').getByText(settlementId, { exact: true }).waitFor();
  });

  it('a viewer reads the settlement section but is offered no form', async () => {
    await signIn('viewer@example.test');
    await go(`#/merchants/${shop.merchant.merchant_id}`, /^Merchant /);
    await settlement().getByTestId('settlement-account').waitFor();
    await settlement().getByText('A finance operator sets the settlement account and settles a wallet.').waitFor();
    expect(await page.getByRole('button', { name: 'Settle now' }).count()).toBe(0);
  });

  it('the merchant sees its settlement and account, and a changed account is held 24 hours', async () => {
    await browser.context.clearCookies();
    await page.goto(`${t.url}/console`);
    await page.getByRole('button', { name: 'Merchant' }).click();
    await page.getByLabel('API key').fill(shop.merchant.api_key);
    await page.getByLabel('Secret key').fill(shop.merchant.secret_key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Balance' }).waitFor();
    await page.getByRole('link', { name: 'Settlements', exact: true }).click();
    await page.getByRole('heading', { name: 'Settlements', level: 1 }).waitFor();
    await eventually(async () => (await rows('Your settlements')).some((r) => r.includes('₹145.28')));
    expect(await settlement().getByTestId('settlement-schedule').innerText()).toBe('daily at 11:30 IST');
    await expectFits('merchant-settlements');

    // The merchant changes the account: held for 24 hours, the operator's schedule kept.
    await settlement().getByLabel('Account holder').fill('Settling Shop Private Limited');
    await settlement().getByRole('button', { name: 'Change account' }).click();
    await settlement()
      .getByText(/settlements are held until/)
      .waitFor();
    await settlement()
      .getByTestId('settlement-active')
      .getByText(/held until/)
      .waitFor();
    expect(await settlement().getByTestId('settlement-schedule').innerText()).toBe('daily at 11:30 IST');
    const audit = await admin(t.url, 'GET', '/admin/v1/audit?limit=50');
    expect(
      (audit.body.data as Record<string, unknown>[]).some(
        (e) => e.actor === `merchant:${shop.merchant.merchant_id}` && e.action === 'merchant.settlement',
      ),
    ).toBe(true);

    await page.getByRole('link', { name: settlementId }).click();
    await page.getByRole('heading', { name: 'Settlement', level: 1 }).waitFor();
    expect(await page.getByTestId('settlement-amount').innerText()).toBe('₹145.28');
    expect(await rows('Collections of this settlement')).toHaveLength(2);
    const href = (await page.getByRole('link', { name: 'Download report (CSV)' }).getAttribute('href')) as string;
    expect(href).toBe(`/console/api/merchant/settlements/${settlementId}?format=csv`);
    await expectFits('merchant-settlement-detail');
    expect(pageErrors).toEqual([]);
  });
});
