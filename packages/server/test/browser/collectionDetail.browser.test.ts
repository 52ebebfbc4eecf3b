import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, CHROMIUM, launchBrowser } from '../support/browser.ts';
import { initiateOk, party, type Party } from '../support/collectionFixtures.ts';
import { createOperator, TEST_PASSWORD } from '../support/consoleClient.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';

/**
 * One collection's detail card (console/shared/CollectionFacts.js) as the operator and the merchant each see it, in
 * Debian's chromium driven by playwright-core: one card for both, with the operator's merchant and payment page rows,
 * and the merchant's payment page button beside the QR code.
 */
const hasChromium = existsSync(CHROMIUM);

if (!hasChromium && !process.env.CI) {
  console.warn(`collection detail browser test skipped: no chromium at ${CHROMIUM} (apt-get install -y chromium)`);
}

describe.runIf(!hasChromium && process.env.CI)('collection detail card in a browser (CI)', () => {
  it('needs chromium', () => {
    expect.fail(`chromium is missing at ${CHROMIUM}: .ci/run installs it (apt-get install -y chromium)`);
  });
});

describe.runIf(hasChromium)('collection detail card, operator and merchant (chromium)', () => {
  let t: TestServer;
  let shop: Party;
  let collection: Awaited<ReturnType<typeof initiateOk>>;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    t = await startTestServer('pglite');
    await createOperator(t.url, 'collections@example.test', 'viewer');
    shop = await party(t.url, 'v2', 'Card Shop');
    collection = await initiateOk(shop.client, { amount: '99.00' });
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** The card's terms and their values, in order. */
  const facts = async () => {
    const card = page.getByTestId('collection-facts');
    await card.waitFor();
    return {
      terms: await card.locator('dt').allInnerTexts(),
      values: (await card.locator('dd').allInnerTexts()).map((v) => v.trim()),
    };
  };

  it('shows the operator the card with the merchant and the payment page', async () => {
    await page.goto(`${t.url}/console`);
    await page.getByRole('button', { name: 'Operator' }).click();
    await page.getByLabel('E-mail address').fill('collections@example.test');
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.goto(`${t.url}/console#/collections/${collection.txnId}`);
    const { terms, values } = await facts();
    expect(terms).toEqual(['Status', 'Amount', 'Fees', 'GST', 'Sender id', 'Merchant', 'Payment page', 'Created']);
    // No pricing plan, and not yet paid: no fee.
    expect(values.slice(1, 5)).toEqual(['₹99.00', '₹0.00', '₹0.00', collection.senderId]);
    expect(values[7]).toMatch(/IST$/);
    const card = page.getByTestId('collection-facts');
    expect(await card.locator(`a[href="#/merchants/${shop.merchant.merchant_id}"]`).count()).toBe(1);
    expect(await card.locator('a[target="_blank"]').getAttribute('href')).toMatch(/\/pay\//);
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'operator-collection.png'), fullPage: true });
    expect(pageErrors).toEqual([]);
  });

  it('shows the merchant the same card with its payment page button, beside the QR code', async () => {
    await browser.context.clearCookies();
    await page.goto(`${t.url}/console`);
    await page.getByRole('button', { name: 'Merchant' }).click();
    await page.getByLabel('API key').fill(shop.merchant.api_key);
    await page.getByLabel('Secret key').fill(shop.merchant.secret_key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Balance' }).waitFor();
    await page.goto(`${t.url}/console#/collections/${collection.txnId}`);
    const { terms, values } = await facts();
    expect(terms).toEqual(['Status', 'Amount', 'Fees', 'GST', 'Sender id', 'Created']);
    expect(values.slice(1, 5)).toEqual(['₹99.00', '₹0.00', '₹0.00', collection.senderId]);
    const button = page.getByTestId('collection-facts').locator('..').getByRole('link', {
      name: 'Open the payment page',
    });
    expect(await button.getAttribute('href')).toMatch(/\/pay\//);
    await page.getByRole('img', { name: `UPI QR code for collection ${collection.txnId}` }).waitFor();
    expect(pageErrors).toEqual([]);
  });
});
