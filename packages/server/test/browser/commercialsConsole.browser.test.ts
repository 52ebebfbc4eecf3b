import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { istDay } from '@payrail/protocol';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, CHROMIUM, launchBrowser } from '../support/browser.ts';
import { createOperator, TEST_PASSWORD } from '../support/consoleClient.ts';
import { admin, createMerchant, MerchantClient, type TestMerchant } from '../support/merchantClient.ts';
import { initiateOk, payoutRequest } from '../support/payoutFixtures.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';
import { eventually } from '../support/webhookReceiver.ts';

/**
 * The console's commercials pages (docs/operator/console.md, "Commercials") in Debian's chromium driven by
 * playwright-core: a finance operator sets a merchant's pricing plan as JSON (a refused plan names its field), a
 * payout initiated through the merchant API shows its fee and GST on the operator's and the merchant's payout pages,
 * on the Fees page (totals, chart, each grouping, CSV) and in the platform wallets of the overview; a finance operator
 * runs the month's invoices (once: again issues nothing) and opens the one issued, its lines, CGST and SGST and PDF;
 * a viewer reads the plan and invoices but is offered no editor and no run; the merchant reads and downloads its
 * invoice. Every page fits a 1280-pixel and a 360-pixel window, tables scrolling in their card.
 */
const hasChromium = existsSync(CHROMIUM);

if (!hasChromium && !process.env.CI) {
  console.warn(`commercials console browser test skipped: no chromium at ${CHROMIUM} (apt-get install -y chromium)`);
}

describe.runIf(!hasChromium && process.env.CI)('commercials console in a browser (CI)', () => {
  it('needs chromium', () => {
    expect.fail(`chromium is missing at ${CHROMIUM}: .ci/run installs it (apt-get install -y chromium)`);
  });
});

/** The documented plan (docs/operator/charging-merchants.md): ₹500.00 by IMPS pays ₹2.00 and ₹0.36 GST. */
const PLAN = {
  name: 'Standard',
  rules: {
    IMPS: { slabs: [{ up_to: '1000.00', flat: '2.00' }, { up_to: '25000.00', flat: '5.00' }, { flat: '10.00' }] },
    NEFT: { slabs: [{ bps: 15, min: '3.00', max: '25.00' }] },
  },
};
/** The same plan with its second slab below its first: refused, naming that slab's up_to. */
const BAD_PLAN = {
  name: 'Broken',
  rules: {
    IMPS: { slabs: [{ up_to: '1000.00', flat: '2.00' }, { up_to: '500.00', flat: '5.00' }, { flat: '10.00' }] },
  },
};

/** The supplier's settings that invoices need (docs/operator/charging-merchants.md, "Tax invoices"). */
const OPERATOR_ENV = {
  PAYRAIL_OPERATOR_LEGAL_NAME: 'Payrail Payments Private Limited',
  PAYRAIL_OPERATOR_GSTIN: '27AAPFU0939F1ZV',
  PAYRAIL_OPERATOR_ADDRESS: '4th Floor, Example House, Lower Parel, Mumbai 400013',
  PAYRAIL_OPERATOR_STATE: '27',
};

describe.runIf(hasChromium)('commercials in the console (chromium)', { timeout: 120_000 }, () => {
  let t: TestServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let merchant: TestMerchant;
  let payoutId: string;
  const pageErrors: string[] = [];
  const today = istDay(new Date());

  beforeAll(async () => {
    t = await startTestServer('pglite', { env: OPERATOR_ENV });
    merchant = await createMerchant(t.url, 'Fee Paying Shop', '100000.00');
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

  /**
   * The page is no wider than the window at 1280 and at 360 pixels: every table inside its card (scrolling sideways
   * in its own wrapper on the phone, not at all on the desktop).
   */
  const expectFits = async (name: string) => {
    for (const [width, height] of [
      [1280, 860],
      [360, 740],
    ] as const) {
      await page.setViewportSize({ width, height });
      const sizes = await page.evaluate(() => ({
        page: document.documentElement.scrollWidth,
        viewport: window.innerWidth,
        main: (document.querySelector('main') as HTMLElement).getBoundingClientRect().right,
        wraps: Array.from(document.querySelectorAll('.table-wrap')).map((w) => ({
          caption: w.getAttribute('aria-label'),
          scroll: w.scrollWidth,
          client: w.clientWidth,
          right: w.getBoundingClientRect().right,
        })),
        // What sticks out, to name in a failure: the outermost elements past the window's right edge.
        wide: Array.from(document.querySelectorAll('body *'))
          .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5)
          .filter((e) => !(e.parentElement && e.parentElement.getBoundingClientRect().right > window.innerWidth + 0.5))
          .map((e) => `${e.tagName.toLowerCase()}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`),
      }));
      expect(sizes.page, `${name} at ${width} px: ${sizes.wide.join(', ')}`).toBeLessThanOrEqual(sizes.viewport);
      for (const w of sizes.wraps) {
        expect(w.right, `${w.caption} at ${width} px`).toBeLessThanOrEqual(sizes.main);
        if (width === 1280) expect(w.scroll, `${w.caption} scrolls at ${width} px`).toBeLessThanOrEqual(w.client);
      }
      await page.screenshot({ path: join(ARTIFACTS, `${name}-${width}.png`), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 860 });
  };

  it('a finance operator sets the pricing plan as JSON; a refused plan names its field', async () => {
    await signIn('finance@example.test');
    await go(`#/merchants/${merchant.merchant_id}`, 'Merchant Fee Paying Shop');
    await page.getByTestId('pricing-none').getByText('No pricing plan: pays no fees.').waitFor();

    const editor = page.getByLabel(/^Plan \(JSON/);
    await editor.fill(JSON.stringify(BAD_PLAN, null, 2));
    await page.getByRole('button', { name: 'Save plan' }).click();
    await page.getByTestId('pricing-error-field').waitFor();
    expect(await page.getByTestId('pricing-error-field').innerText()).toBe('rules.IMPS.slabs[1].up_to');
    expect(await editor.getAttribute('aria-invalid')).toBe('true');
    expect((await admin(t.url, 'GET', `/admin/v1/merchants/${merchant.merchant_id}/pricing`)).status).toBe(404);

    // Not JSON at all: refused in the page, nothing sent.
    await editor.fill('{"name": "Standard",');
    await page.getByRole('button', { name: 'Save plan' }).click();
    await page.getByText(/The plan is not valid JSON/).waitFor();

    await editor.fill(JSON.stringify(PLAN, null, 2));
    await page.getByRole('button', { name: 'Save plan' }).click();
    await page.getByText('Pricing plan “Standard” saved').waitFor();
    await page.getByTestId('pricing-name').getByText('Standard').waitFor();
    expect(await rows('Slabs of Standard')).toEqual([
      'IMPS | up to ₹1,000.00 | ₹2.00 | — | —',
      ' | up to ₹25,000.00 | ₹5.00 | — | —',
      ' | above ₹25,000.00 | ₹10.00 | — | —',
      'NEFT | any amount | 0.15 % | ₹3.00 | ₹25.00',
    ]);
    expect(await page.getByTestId('pricing-plan').locator('p').first().innerText()).toMatch(
      /^Standard, GST 18\.00 % on every fee; set \d.+ IST\. A product the plan does not name is free\.$/,
    );
    // The editor now holds the stored plan, ready for the next change: each slab on a line of its own.
    const stored = await page.getByLabel('New plan (JSON)').inputValue();
    expect(stored).toContain('{ "up_to": "1000.00", "flat": "2.00" },');
    expect(stored).toContain('{ "bps": 15, "min": "3.00", "max": "25.00" }');
    expect(JSON.parse(stored)).toMatchObject({
      name: 'Standard',
      rules: { IMPS: { slabs: [{ up_to: '1000.00', flat: '2.00' }, {}, {}] } },
    });
    const plan = await admin(t.url, 'GET', `/admin/v1/merchants/${merchant.merchant_id}/pricing`);
    expect(plan.status).toBe(200);
    expect(plan.body).toMatchObject({ name: 'Standard', rules: { NEFT: { slabs: [{ bps: 15, min: '3.00' }] } } });
    await expectFits('merchant-pricing');
  });

  it('a payout initiated through the merchant API shows its fee and GST on its page', async () => {
    const client = await MerchantClient.connect(t.url, merchant, 'v2');
    const payout = await initiateOk(
      client,
      payoutRequest('nested', { wallet_id: merchant.wallet_id, amount: '500.00', payment_mode: 'IMPS' }),
    );
    expect(payout).toMatchObject({ fees: '2.00', tax: '0.36' });
    payoutId = payout.transaction_id as string;
    await go(`#/payouts/${payoutId}`, 'Payout');
    await page.getByTestId('payout-fees').getByText('₹2.00').waitFor();
    expect(await page.getByTestId('payout-tax').innerText()).toBe('₹0.36');
    expect(await page.getByTestId('payout-amount').innerText()).toBe('₹500.00');
    await expectFits('payout-fees');
  });

  it('the Fees page shows the fee by day, merchant and product, with totals, a chart and the CSV', async () => {
    await page.getByRole('link', { name: 'Fees', exact: true }).click();
    await page.getByRole('heading', { name: 'Fees', level: 1 }).waitFor();
    await page.getByTestId('fees-total-fees').getByText('₹2.00').waitFor();
    expect(await page.getByTestId('fees-total-tax').innerText()).toBe('₹0.36');
    expect(await page.getByTestId('fees-total-count').innerText()).toBe('1');
    // Every day of the month so far, zeros included; today's row has the fee, and so does its bar.
    const byDay = await rows('Fees and GST by day');
    expect(byDay).toContain(`${today} | 1 | ₹2.00 | ₹0.36`);
    expect(byDay[byDay.length - 1]).toBe('Total | 1 | ₹2.00 | ₹0.36');
    expect(byDay.length).toBe(Number(today.slice(8)) + 1);
    const bars = page.getByTestId('fee-chart').locator('rect');
    expect(await bars.count()).toBe(1);
    expect(await bars.getAttribute('data-day')).toBe(today);
    expect(await page.getByTestId('fee-chart').locator('svg').getAttribute('aria-label')).toContain(
      `highest ₹2.00 on ${today}`,
    );

    await page.getByRole('button', { name: 'By merchant' }).click();
    await eventually(async () => (await rows('Fees and GST by merchant')).length === 2, 10_000, 50);
    expect(await rows('Fees and GST by merchant')).toEqual([
      `${merchant.merchant_id} | 1 | ₹2.00 | ₹0.36`,
      'Total | 1 | ₹2.00 | ₹0.36',
    ]);
    const merchantLink = page.getByRole('link', { name: merchant.merchant_id });
    expect(await merchantLink.getAttribute('href')).toBe(`#/merchants/${merchant.merchant_id}`);

    await page.getByRole('button', { name: 'By product' }).click();
    // The caption changes with the button; the rows when the product report has loaded (both have two rows).
    await eventually(async () => (await rows('Fees and GST by product'))[0] === 'IMPS | 1 | ₹2.00 | ₹0.36', 10_000, 50);
    expect(await rows('Fees and GST by product')).toEqual(['IMPS | 1 | ₹2.00 | ₹0.36', 'Total | 1 | ₹2.00 | ₹0.36']);
    expect(await page.getByRole('button', { name: 'By product' }).getAttribute('aria-pressed')).toBe('true');

    // A range of IST days: today alone.
    await page.getByLabel('From (IST day)').fill(today);
    await page.getByLabel('To (IST day, inclusive)').fill(today);
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByTestId('fees-window').getByText(`${today} to ${today} (IST)`).waitFor();
    const csvHref = await page.getByTestId('fees-csv').getAttribute('href');
    expect(csvHref).toBe(`/admin/v1/platform/fees?from=${today}&to=${today}&group=product&format=csv`);
    // The link is read with the operator's own session, as the browser would download it.
    const csv = await page.request.get(`${t.url}${csvHref}`);
    expect(csv.status()).toBe(200);
    expect(csv.headers()['content-type']).toMatch(/^text\/csv/);
    const lines = (await csv.text()).trim().split(/\r?\n/);
    expect(lines).toEqual(['product,count,fees,tax', 'IMPS,1,2.00,0.36', 'total,1,2.00,0.36']);
    await expectFits('fees');
  });

  it("the overview shows the platform's wallets: the fee in fees, its GST in gst", async () => {
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByTestId('platform-wallet-fees').getByText('₹2.00').waitFor();
    expect(await page.getByTestId('platform-wallet-gst').innerText()).toBe('₹0.36');
    expect(await page.getByTestId('platform-wallet-recovery').innerText()).toBe('₹0.00');
    await expectFits('overview-platform-wallets');
  });

  it("a finance operator runs the month's invoices: one for the merchant, its lines, totals and PDF", async () => {
    const month = today.slice(0, 7);
    await page.getByRole('link', { name: 'Invoices', exact: true }).click();
    await page.getByRole('heading', { name: 'Invoices', level: 1 }).waitFor();
    await eventually(async () => (await rows('Invoices'))[0] === 'No invoices.', 10_000, 50);
    // The month to run starts at this IST month.
    expect(await page.getByLabel('Month to invoice (IST)').inputValue()).toBe(month);
    await page.getByRole('button', { name: 'Run month' }).click();
    await page.getByText(`${month}: 1 invoice issued.`).waitFor();
    await eventually(
      async () => (await rows('Invoices')).length === 1 && (await rows('Invoices'))[0] !== 'No invoices.',
    );
    const [listed] = await rows('Invoices');
    const number = listed?.split(' | ')[0] as string;
    expect(number).toMatch(/^INV\/\d{4}-\d{2}\/000001$/);
    expect(listed).toContain(`| ${month} |`);
    expect(listed).toContain('| IMPS 1 · ₹2.00 | ₹2.00 | ₹0.36 | ₹2.36 |');
    expect(listed).toMatch(/\| PDF · CSV$/);
    // Running it again issues nothing new.
    await page.getByRole('button', { name: 'Run month' }).click();
    await page.getByText(`${month}: 1 invoice issued before.`).waitFor();
    expect(await rows('Invoices')).toHaveLength(1);

    // The filters: another month has none; this month and the merchant have it.
    await page.getByLabel('Month (IST)', { exact: true }).fill('2020-01');
    await page.getByRole('button', { name: 'Apply' }).click();
    await eventually(async () => (await rows('Invoices'))[0] === 'No invoices.', 10_000, 50);
    await page.getByLabel('Month (IST)', { exact: true }).fill(month);
    await page.getByLabel('Merchant ID').fill(merchant.merchant_id);
    await page.getByRole('button', { name: 'Apply' }).click();
    await eventually(async () => (await rows('Invoices'))[0]?.startsWith(number) ?? false, 10_000, 50);
    await expectFits('invoices');

    const pdfHref = (await page.getByRole('link', { name: `PDF of invoice ${number}` }).getAttribute('href')) as string;
    expect(pdfHref).toMatch(/^\/admin\/v1\/invoices\/IV[0-9A-Z]{26}\?format=pdf$/);
    const pdf = await page.request.get(`${t.url}${pdfHref}`);
    expect(pdf.status()).toBe(200);
    expect(pdf.headers()['content-type']).toBe('application/pdf');
    expect((await pdf.body()).subarray(0, 5).toString()).toBe('%PDF-');

    await page.getByRole('link', { name: number, exact: true }).click();
    await page.getByRole('heading', { name: `Invoice ${number}` }).waitFor();
    expect(await rows('Invoice lines')).toEqual(['IMPS | 1 | ₹2.00 | ₹0.36']);
    // No billing state: the merchant is in the operator's state, so the GST is CGST and SGST.
    expect(await rows('Totals')).toEqual([
      'Taxable value | ₹2.00',
      'CGST (9 %) | ₹0.18',
      'SGST (9 %) | ₹0.18',
      'Total | ₹2.36',
    ]);
    expect(await page.getByTestId('invoice-facts').innerText()).toContain(merchant.merchant_id.slice(0, 6));
    await page.getByText('GSTIN 27AAPFU0939F1ZV').waitFor();
    await expectFits('invoice');
  });

  it('a viewer reads the plan and the fees but is offered no editor', async () => {
    await signIn('viewer@example.test');
    await go(`#/merchants/${merchant.merchant_id}`, 'Merchant Fee Paying Shop');
    await page.getByTestId('pricing-name').waitFor();
    await page.getByText('A finance operator sets pricing plans.').waitFor();
    expect(await page.getByRole('button', { name: 'Save plan' }).count()).toBe(0);
    await go('#/fees', 'Fees');
    await page.getByTestId('fees-total-fees').getByText('₹2.00').waitFor();
    await go('#/invoices', 'Invoices');
    await page.getByText("A finance operator runs a month's invoices.").waitFor();
    await eventually(
      async () => (await rows('Invoices')).length === 1 && (await rows('Invoices'))[0] !== 'No invoices.',
    );
    expect(await page.getByRole('button', { name: 'Run month' }).count()).toBe(0);
  });

  it('the merchant sees the fee and GST on its own payout page, and its invoice', async () => {
    await browser.context.clearCookies();
    await page.goto(`${t.url}/console`);
    await page.getByRole('button', { name: 'Merchant' }).click();
    await page.getByLabel('API key').fill(merchant.api_key);
    await page.getByLabel('Secret key').fill(merchant.secret_key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Balance' }).waitFor();
    await go(`#/payouts/${payoutId}`, 'Payout');
    await page.getByTestId('payout-fees').getByText('₹2.00').waitFor();
    expect(await page.getByTestId('payout-tax').innerText()).toBe('₹0.36');
    await expectFits('merchant-payout-fees');

    // Its invoices: the one issued, to open and to download as PDF from its own console's route.
    await page.getByRole('link', { name: 'Invoices', exact: true }).click();
    await page.getByRole('heading', { name: 'Invoices', level: 1 }).waitFor();
    await eventually(async () => (await rows('Your invoices'))[0]?.startsWith('INV/') ?? false, 10_000, 50);
    const [listed] = await rows('Your invoices');
    expect(listed).toContain('| IMPS 1 · ₹2.00 | ₹2.00 | ₹0.36 | ₹2.36 |');
    const number = listed?.split(' | ')[0] as string;
    const pdfHref = (await page.getByRole('link', { name: `PDF of invoice ${number}` }).getAttribute('href')) as string;
    expect(pdfHref).toMatch(/^\/console\/api\/merchant\/invoices\/IV[0-9A-Z]{26}\?format=pdf$/);
    const pdf = await page.request.get(`${t.url}${pdfHref}`);
    expect(pdf.status()).toBe(200);
    expect(pdf.headers()['content-type']).toBe('application/pdf');
    await expectFits('merchant-invoices');
    await page.getByRole('link', { name: number, exact: true }).click();
    await page.getByRole('heading', { name: `Invoice ${number}` }).waitFor();
    expect(await rows('Totals')).toContain('Total | ₹2.36');
    expect(pageErrors).toEqual([]);
  });
});
