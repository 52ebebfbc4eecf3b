import { join } from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, BROWSER_TESTS, CHROMIUM, launchBrowser } from '../support/browser.ts';
import { createOperator, TEST_PASSWORD } from '../support/consoleClient.ts';
import { initiateOk as initiateCollection } from '../support/collectionFixtures.ts';
import { admin, createMerchant, MerchantClient, type TestMerchant } from '../support/merchantClient.ts';
import { initiateOk, PLAIN_BENEFICIARY, payoutRequest, senderId, waitForStatus } from '../support/payoutFixtures.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';
import { eventually, WebhookReceiver } from '../support/webhookReceiver.ts';

// Without chromium the file is skipped, and says so; in CI (CI=1) it runs and fails in launchBrowser instead.
if (!BROWSER_TESTS) {
  console.warn(`console payments e2e test skipped: no chromium at ${CHROMIUM} (apt-get install -y chromium)`);
}

/** What page.evaluate callbacks use of the browser (the tests compile without the DOM library). */
interface BrowserGlobals {
  getComputedStyle(el: unknown): { textAlign: string; color: string };
  navigator: { clipboard: { readText(): Promise<string> } };
}

const IST_MS = 330 * 60 * 1000;
/** The IST calendar day `days` from today, as a date field takes it. */
const istDay = (days = 0) => new Date(Date.now() + IST_MS + days * 86_400_000).toISOString().slice(0, 10);

/**
 * The console as a payments tool (RazorpayX, Cashfree): the SANDBOX/LIVE marker, money in Indian digit grouping,
 * names beside ids, a payout's full detail and webhook story, the merchant opening its own payouts, IST date
 * filters, and a clean browser console. One server for the file, in sandbox mode.
 */
describe.skipIf(!BROWSER_TESTS)('console as a payments tool', { timeout: 120_000 }, () => {
  let t: TestServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let context: BrowserContext;
  let page: Page;
  let receiver: WebhookReceiver;
  let chai: TestMerchant;
  let dosa: TestMerchant;
  let delivered: string;
  let failing: string;
  let theirs: string;
  let batchId: string;
  const errors: string[] = [];

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    receiver.respond = (hook) => (hook.path === '/down' ? 500 : 200);
    // Retries two minutes apart: a failing delivery stays pending (with its next attempt) while the test looks.
    t = await startTestServer('pglite', { env: { PAYRAIL_WEBHOOK_RETRY_SCHEDULE: '2m,2m' } });
    await createOperator(t.url, 'admin@example.test', 'admin');
    [chai, dosa] = await Promise.all([
      createMerchant(t.url, 'Chai Point Retail', '50000.00'),
      createMerchant(t.url, 'Dosa Corner', '500.00'),
      createMerchant(t.url, 'Idli Express', '100000.00'),
    ]);
    const client = await MerchantClient.connect(t.url, chai, 'v2');
    const p1 = await initiateOk(
      client,
      payoutRequest('nested', {
        wallet_id: chai.wallet_id,
        amount: '15350.50',
        remarks: 'Invoice 4471 settlement',
        callback_url: `${receiver.url}/ok`,
      }),
    );
    delivered = p1.transaction_id as string;
    const p2 = await initiateOk(
      client,
      payoutRequest('nested', { wallet_id: chai.wallet_id, amount: '100.00', callback_url: `${receiver.url}/down` }),
    );
    failing = p2.transaction_id as string;
    const dosaClient = await MerchantClient.connect(t.url, dosa, 'v2');
    theirs = (await initiateOk(dosaClient, payoutRequest('nested', { wallet_id: dosa.wallet_id, amount: '10.00' })))
      .transaction_id as string;
    await initiateCollection(client, { amount: '1500.00' });
    batchId = senderId('batch');
    const item = (amount: string) => ({
      sender_id: senderId('bk'),
      wallet_id: chai.wallet_id,
      payment_mode: 'IMPS',
      amount,
      beneficiary: { ...PLAIN_BENEFICIARY },
    });
    const sent = await client.post('/payout/v1/bulk', { batch_id: batchId, items: [item('20.00'), item('15.00')] });
    expect(sent.body.resp_code).toBe(2000);
    await Promise.all([
      waitForStatus(t.url, delivered, 'SUCCESS'),
      waitForStatus(t.url, failing, 'SUCCESS'),
      waitForStatus(t.url, theirs, 'SUCCESS'),
    ]);
    browser = await launchBrowser();
    context = browser.context;
    page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await receiver?.stop();
  });

  const shot = async (name: string) => {
    await page.screenshot({ path: join(ARTIFACTS, `${name}-desktop.png`), fullPage: true });
    await page.setViewportSize({ width: 360, height: 740 });
    await page.screenshot({ path: join(ARTIFACTS, `${name}-phone.png`), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 860 });
  };
  const go = async (hash: string) => {
    await page.goto(`${t.url}/console${hash}`);
    await page.locator('main h1').first().waitFor();
  };
  const signIn = async () => {
    await context.clearCookies();
    await page.goto(`${t.url}/console`);
    await page.getByRole('button', { name: 'Operator' }).click();
    await page.getByLabel('E-mail address').fill('admin@example.test');
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  };
  const signInMerchant = async (m: TestMerchant) => {
    await context.clearCookies();
    await page.goto(`${t.url}/console`);
    await page.getByRole('button', { name: 'Merchant' }).click();
    await page.getByLabel('API key').fill(m.api_key);
    await page.getByLabel('Secret key').fill(m.secret_key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Balance' }).waitFor();
  };
  /** The row of a table that holds the copy button of this id. */
  const rowOf = (table: Locator, id: string) =>
    table.locator('tbody tr').filter({ has: page.getByRole('button', { name: `Copy ${id}`, exact: true }) });
  const attrs = (label: string) =>
    page
      .getByLabel(label, { exact: true })
      .evaluate((el) => ({ spellcheck: el.getAttribute('spellcheck'), autocomplete: el.getAttribute('autocomplete') }));

  it('marks the signed-out page SANDBOX, hints credential fields, and logs no error on load', async () => {
    errors.length = 0;
    await page.goto(`${t.url}/console`);
    await page.getByRole('heading', { name: 'Payrail console' }).waitFor();
    await expect(page.getByTestId('mode').textContent()).resolves.toBe('SANDBOX');
    expect(await page.title()).toBe('SANDBOX · Sign in · Payrail console');
    await expect(attrs('E-mail address')).resolves.toEqual({ spellcheck: 'false', autocomplete: 'username' });
    await expect(attrs('Password')).resolves.toEqual({ spellcheck: 'false', autocomplete: 'current-password' });
    await page.getByRole('button', { name: 'Merchant' }).click();
    await expect(attrs('API key')).resolves.toEqual({ spellcheck: 'false', autocomplete: 'username' });
    await expect(attrs('Secret key')).resolves.toEqual({ spellcheck: 'false', autocomplete: 'current-password' });
    // The start-up probe answers 200 when signed out: no failed request for the browser to log.
    expect(errors).toEqual([]);
    const probe = await page.evaluate(async () => {
      const res = await fetch('/console/api/whoami');
      return { status: res.status, body: (await res.json()) as unknown };
    });
    expect(probe).toEqual({ status: 200, body: { signed_in: false, mode: 'sandbox' } });
    await shot('sign-in');
  });

  it('marks every operator page and its title; the overview chart names its axes; no error on load', async () => {
    await signIn();
    errors.length = 0;
    await go('#/');
    await page.locator('.chart svg').waitFor();
    await expect(page.locator('header.top').getByTestId('mode').textContent()).resolves.toBe('SANDBOX');
    expect(await page.title()).toBe('SANDBOX · Overview · Payrail console');
    await expect(page.getByTestId('chart-x-label').textContent()).resolves.toMatch(/Hour of the day \(IST\)/);
    await expect(page.getByTestId('chart-y-label').textContent()).resolves.toMatch(/Payouts \(count\)/);
    await page.getByTestId('connectors').locator('tbody tr').first().waitFor();
    expect(errors).toEqual([]);
    await shot('overview');
    await go('#/payouts');
    expect(await page.title()).toBe('SANDBOX · Payouts · Payrail console');
    await expect(page.getByTestId('mode').textContent()).resolves.toBe('SANDBOX');
  });

  it('lists payouts with money in Indian grouping, merchant and beneficiary names, accounts by role, short ids', async () => {
    const api = (await admin(t.url, 'GET', `/admin/v1/payouts/${delivered}`)).body as {
      beneficiary: { bank_name: string };
    };
    expect(api.beneficiary.bank_name).not.toBe('');
    await go('#/payouts');
    const table = page.getByRole('table', { name: 'Payouts' });
    const row = rowOf(table, delivered);
    await row.waitFor();
    const text = (await row.textContent()) ?? '';
    expect(text).toContain('₹15,350.50');
    expect(text).toContain('Chai Point Retail');
    expect(text).toContain('Asha Rao');
    // An admin sees the account number in full (docs/operator/console.md, "Who sees full account numbers"; a
    // viewer's is masked by the admin API: consoleLayout.browser.test.ts).
    expect(text).toContain(PLAIN_BENEFICIARY.beneficiary_acc_number);
    expect(text).toContain('IMPS');
    expect(text).toContain(api.beneficiary.bank_name);
    // The amount column is right-aligned, header and cells.
    const amount = row.locator('td.num').first();
    await expect(
      amount.evaluate((el) => (globalThis as unknown as BrowserGlobals).getComputedStyle(el).textAlign),
    ).resolves.toBe('right');
    // The id shows shortened on one line; the button copies the whole id.
    const shortText = await row.locator('.short-id [aria-hidden="true"]').first().textContent();
    expect(shortText).toBe(`${delivered.slice(0, 6)}…${delivered.slice(-2)}`);
    const box = await row.locator('.short-id').first().boundingBox();
    expect(box?.height ?? 0).toBeLessThan(40);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
    await row.getByRole('button', { name: `Copy ${delivered}`, exact: true }).click();
    await expect(
      page.evaluate(() => (globalThis as unknown as BrowserGlobals).navigator.clipboard.readText()),
    ).resolves.toBe(delivered);
    await shot('payouts');

    await go('#/collections');
    const collections = page.getByRole('table', { name: 'Collections' });
    await collections
      .locator('tbody tr')
      .filter({ hasText: '₹1,500.00' })
      .filter({ hasText: 'Chai Point Retail' })
      .waitFor();
    await shot('collections');

    await go('#/batches');
    const batches = page.getByRole('table', { name: 'Bulk payout batches' });
    await batches.locator('tbody tr').filter({ hasText: batchId }).filter({ hasText: 'Chai Point Retail' }).waitFor();
    await shot('batches');

    await go('#/merchants');
    const merchants = page.getByRole('table', { name: 'Merchants' });
    await merchants
      .locator('tbody tr')
      .filter({ hasText: 'Idli Express' })
      .filter({ hasText: '₹1,00,000.00' })
      .waitFor();
    await shot('merchants');
  });

  it('shows a payout in full, and tells delivered, failed and waiting webhooks apart', async () => {
    const p = (await admin(t.url, 'GET', `/admin/v1/payouts/${delivered}`)).body as Record<string, unknown>;
    await go(`#/payouts/${delivered}`);
    const facts = page.getByTestId('payout-facts');
    await facts.waitFor();
    const text = (await facts.textContent()) ?? '';
    for (const expected of [
      '₹15,350.50',
      'IMPS',
      'Invoice 4471 settlement',
      `${receiver.url}/ok`,
      (p.beneficiary as { bank_name: string }).bank_name,
      String(p.connector),
      String(p.rail_reference ?? '—'),
      PLAIN_BENEFICIARY.beneficiary_acc_number,
      'Chai Point Retail',
    ])
      expect(text).toContain(expected);
    const timeline = page.getByRole('list', { name: 'Timeline' });
    await eventually(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return (await timeline.locator('li.webhook.delivered').count()) >= 2;
    });
    await expect(timeline.locator('li.webhook.delivered').first().textContent()).resolves.toMatch(
      /delivered: HTTP 200/,
    );

    // The failing callback: its attempt is red with the status, its next attempt is due, the next event waits.
    await eventually(async () => {
      const res = await admin(t.url, 'GET', `/admin/v1/payouts/${failing}/timeline`);
      const d = res.body.deliveries as { attempt_count: number; waiting_behind: string | null }[];
      return d.length >= 2 && (d[0]?.attempt_count ?? 0) >= 1 && d.some((x) => x.waiting_behind);
    }, 20_000);
    await go(`#/payouts/${failing}`);
    const failed = timeline.locator('li.webhook.failed').first();
    await failed.waitFor();
    await expect(failed.textContent()).resolves.toMatch(/failed: HTTP 500/);
    const colours = await Promise.all(
      [failed, timeline.locator('li.webhook.waiting').first()].map((l) =>
        l.locator('strong').evaluate((el) => (globalThis as unknown as BrowserGlobals).getComputedStyle(el).color),
      ),
    );
    expect(colours[0]).not.toBe(colours[1]);
    const waiting = (await timeline.locator('li.webhook.waiting').allTextContents()).join('\n');
    expect(waiting).toMatch(/next attempt .*IST/);
    expect(waiting).toMatch(/waits behind .*not delivered yet/);
    await shot('payout-timeline');

    await go('#/webhooks');
    // The picker's time is IST whatever the browser's zone: 10:30 IST is 05:00 UTC.
    await page.getByLabel('Merchant ID').fill(chai.merchant_id);
    await page.getByLabel('Created since (IST)').fill('2026-11-25T10:30');
    const [replay] = await Promise.all([
      page.waitForRequest((r) => r.url().endsWith('/admin/v1/webhooks/deliveries/replay')),
      page.getByRole('button', { name: 'Replay failed' }).click(),
    ]);
    expect(replay.postDataJSON()).toEqual({ merchant_id: chai.merchant_id, since: '2026-11-25T05:00:00.000Z' });
    await page.getByRole('table', { name: 'All deliveries' }).locator('tbody tr').first().waitFor();
    await shot('webhooks');
  });

  it('narrows the payouts, collections and batches lists by IST dates', async () => {
    const apply = async (from: string, to: string) => {
      await page.getByLabel('From (IST day)').fill(from);
      await page.getByLabel('To (IST day, inclusive)').fill(to);
      await page.getByRole('button', { name: 'Apply' }).click();
    };
    await go('#/payouts');
    const payouts = page.getByRole('table', { name: 'Payouts' });
    await rowOf(payouts, delivered).waitFor();
    await apply(istDay(1), '');
    await payouts.getByText('Nothing here yet.').waitFor();
    await apply(istDay(-1), istDay(0));
    await rowOf(payouts, delivered).waitFor();
    await apply('', istDay(-1));
    await payouts.getByText('Nothing here yet.').waitFor();

    await go('#/collections');
    const collections = page.getByRole('table', { name: 'Collections' });
    await collections.locator('tbody tr').filter({ hasText: '₹1,500.00' }).waitFor();
    await apply(istDay(1), '');
    await collections.getByText('Nothing here yet.').waitFor();

    await go('#/batches');
    const batches = page.getByRole('table', { name: 'Bulk payout batches' });
    await batches.locator('tbody tr').filter({ hasText: batchId }).waitFor();
    await apply(istDay(1), '');
    await batches.getByText('No batches.').waitFor();
    await apply(istDay(0), istDay(0));
    await batches.locator('tbody tr').filter({ hasText: batchId }).waitFor();

    const bad = await admin(t.url, 'GET', '/admin/v1/payouts?from=2026-02-30');
    expect(bad.status).toBe(400);
  });

  it("opens the merchant's own payout with its timeline, and answers 404 for another merchant's", async () => {
    await signInMerchant(chai);
    errors.length = 0;
    await go('#/payouts');
    const payouts = page.getByRole('table', { name: 'Your payouts' });
    await rowOf(payouts, delivered).waitFor();
    expect(errors).toEqual([]);
    await expect(page.getByTestId('mode').textContent()).resolves.toBe('SANDBOX');
    expect(await page.title()).toBe('SANDBOX · Payouts · Payrail console');
    await payouts.getByRole('link', { name: delivered }).click();
    await page.getByRole('heading', { name: 'Payout', exact: true }).waitFor();
    await expect(page.getByTestId('payout-amount').textContent()).resolves.toBe('₹15,350.50');
    const timeline = page.getByRole('list', { name: 'Timeline' });
    await timeline.locator('li.webhook.delivered').first().waitFor();
    await expect(timeline.textContent()).resolves.toMatch(/Requested[^]*SUCCESS[^]*HTTP 200/);
    await shot('merchant-payout');

    await go(`#/payouts/${theirs}`);
    await page
      .getByRole('alert')
      .filter({ hasText: /not found/i })
      .waitFor();
    await expect(page.getByTestId('payout-facts').count()).resolves.toBe(0);
    const peek = await page.evaluate(
      async (id) =>
        Promise.all([
          fetch(`/console/api/merchant/payouts/${id}`).then((r) => r.status),
          fetch(`/console/api/merchant/payouts/${id}/timeline`).then((r) => r.status),
        ]),
      theirs,
    );
    expect(peek).toEqual([404, 404]);
  });
});
