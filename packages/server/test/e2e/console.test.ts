import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, BROWSER_TESTS, CHROMIUM, launchBrowser } from '../support/browser.ts';
import { createOperator, TEST_PASSWORD } from '../support/consoleClient.ts';
import { admin, createMerchant, MerchantClient, type TestMerchant } from '../support/merchantClient.ts';
import { initiateOk as initiateCollection } from '../support/collectionFixtures.ts';
import {
  initiateOk,
  PLAIN_BENEFICIARY,
  payoutRequest,
  SANDBOX,
  senderId,
  waitForStatus,
} from '../support/payoutFixtures.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';
import { eventually, WebhookReceiver } from '../support/webhookReceiver.ts';

// Without chromium the file is skipped, and says so; in CI (CI=1) it runs and fails in launchBrowser instead.
if (!BROWSER_TESTS) {
  console.warn(`console e2e test skipped: no chromium at ${CHROMIUM} (apt-get install -y chromium)`);
}

/** Waits until the element shows the text: pages render what they load after their headings and messages. */
async function expectText(locator: Locator, text: string | RegExp): Promise<void> {
  const pattern = typeof text === 'string' ? new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) : text;
  await locator.filter({ hasText: pattern }).first().waitFor({ timeout: 10_000 });
}

/** The console in a real browser (Debian's chromium through playwright-core), against one real server. */
describe.skipIf(!BROWSER_TESTS)('console in a browser', { timeout: 120_000 }, () => {
  let t: TestServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let context: BrowserContext;
  let page: Page;
  let receiver: WebhookReceiver;
  let failing = true;
  let created: { merchant_id: string; api_key: string; secret_key: string };
  let other: TestMerchant;
  let batchId: string;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    receiver.respond = (hook) => (hook.path === '/flaky' && failing ? 500 : 200);
    t = await startTestServer('pglite', { env: { PAYRAIL_CREDIT_APPROVAL_ABOVE: '1000.00' } });
    await Promise.all([
      createOperator(t.url, 'admin@example.test', 'admin'),
      createOperator(t.url, 'viewer@example.test', 'viewer'),
      createOperator(t.url, 'fin-a@example.test', 'finance'),
      createOperator(t.url, 'fin-b@example.test', 'finance'),
    ]);
    other = await createMerchant(t.url, 'Someone Else', '500.00');
    // A payout of the other merchant, so that "sees only its own data" has something to hide.
    const otherClient = await MerchantClient.connect(t.url, other, 'v2');
    await initiateOk(otherClient, payoutRequest('nested', { wallet_id: other.wallet_id, amount: '100.00' }));
    browser = await launchBrowser();
    context = browser.context;
    page = context.pages()[0] ?? (await context.newPage());
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
  const signIn = async (email: string) => {
    await context.clearCookies();
    await page.goto(`${t.url}/console`);
    await page.getByRole('button', { name: 'Operator' }).click();
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  };
  const signOut = async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Payrail console' }).waitFor();
  };
  const balanceOf = async (walletId: string) =>
    (await admin(t.url, 'GET', `/admin/v1/wallets/${walletId}`)).body.balance as string;

  it('signs an operator in and out; the signed-out page has no session', async () => {
    await page.goto(`${t.url}/console`);
    await page.getByRole('heading', { name: 'Payrail console' }).waitFor();
    await shot('sign-in');
    await signIn('admin@example.test');
    await expectText(page.getByTestId('who'), /admin/);
    const cookies = await context.cookies(t.url);
    const session = cookies.find((c) => c.name === 'payrail_op');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    await signOut();
    const status = await page.evaluate(async () => (await fetch('/console/api/session')).status);
    expect(status).toBe(401);
  });

  it('creates a merchant and shows its credentials once', async () => {
    await signIn('admin@example.test');
    await go('#/merchants');
    await page.getByLabel('Name', { exact: true }).fill('Chai Point');
    await page.getByRole('button', { name: 'Create merchant' }).click();
    const id = (await page.getByTestId('new-merchant-id').textContent()) as string;
    created = {
      merchant_id: id,
      api_key: (await page.getByTestId('api-key').textContent()) as string,
      secret_key: (await page.getByTestId('secret-key').textContent()) as string,
    };
    expect(id).toMatch(/^MR[0-9A-Z]{26}$/);
    await shot('merchant-created');
    await page.getByRole('button', { name: 'I have stored them' }).click();
    await expect(page.getByTestId('api-key').count()).resolves.toBe(0);
    const m = await admin(t.url, 'GET', `/admin/v1/merchants/${id}`);
    expect(m.body.name).toBe('Chai Point');
    await signOut();
  });

  it('keeps a viewer from crediting: no form, and the server refuses a forged request', async () => {
    const walletId = (await admin(t.url, 'GET', `/admin/v1/merchants/${created.merchant_id}`)).body.wallets as {
      wallet_id: string;
    }[];
    const wallet = walletId[0]?.wallet_id as string;
    await signIn('viewer@example.test');
    await go(`#/wallets/${wallet}`);
    await expect(page.getByRole('button', { name: 'Credit' }).count()).resolves.toBe(0);
    const forged = await page.evaluate(async (w) => {
      const { csrf_token } = (await (await fetch('/console/api/session')).json()) as { csrf_token: string };
      const res = await fetch(`/admin/v1/wallets/${w}/credits`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrf_token },
        body: JSON.stringify({ amount: '100.00' }),
      });
      return { status: res.status, body: (await res.json()) as { error: { code: string } } };
    }, wallet);
    expect(forged.status).toBe(403);
    expect(forged.body.error.code).toBe('forbidden');
    expect(await balanceOf(wallet)).toBe('0.00');
    await signOut();
  });

  it('holds a large credit until a second operator approves it', async () => {
    const m = await admin(t.url, 'GET', `/admin/v1/merchants/${created.merchant_id}`);
    const wallet = (m.body.wallets as { wallet_id: string }[])[0]?.wallet_id as string;
    await signIn('fin-a@example.test');
    await go(`#/wallets/${wallet}`);
    await page.getByLabel('Amount (₹)', { exact: true }).fill('5000.00');
    await page.getByRole('button', { name: 'Credit', exact: true }).click();
    await page.getByText('waits for a second operator').waitFor();
    expect(await balanceOf(wallet)).toBe('0.00');
    await go('#/approvals');
    // The maker sees the request but the server refuses the maker's own approval.
    await page.getByRole('button', { name: /^Approve CR/ }).click();
    await page.getByRole('alert').filter({ hasText: 'different operator' }).waitFor();
    await signOut();
    await signIn('fin-b@example.test');
    await go('#/approvals');
    await shot('approvals');
    await page.getByRole('button', { name: /^Approve CR/ }).click();
    await page.getByText('approved', { exact: true }).first().waitFor();
    expect(await balanceOf(wallet)).toBe('5000.00');
    await go(`#/wallets/${wallet}`);
    await expectText(page.getByTestId('wallet-balance'), '₹5,000.00');
  });

  it('shows a payout sent through the API with its full timeline', async () => {
    await signIn('fin-b@example.test');
    const client = await MerchantClient.connect(t.url, { ...created, webhook_secret: '', wallet_id: '' }, 'v2');
    const m = await admin(t.url, 'GET', `/admin/v1/merchants/${created.merchant_id}`);
    const wallet = (m.body.wallets as { wallet_id: string }[])[0]?.wallet_id as string;
    const p = await initiateOk(
      client,
      payoutRequest('nested', { wallet_id: wallet, amount: '250.00', callback_url: `${receiver.url}/ok` }),
    );
    const id = p.transaction_id as string;
    await waitForStatus(t.url, id, 'SUCCESS');
    await eventually(() => receiver.at('/ok').length >= 2);
    await go('#/payouts');
    await page.getByRole('link', { name: id }).click();
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    const timeline = page.getByRole('list', { name: 'Timeline' });
    await eventually(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      const text = (await timeline.textContent()) ?? '';
      return text.includes('SUCCESS') && (text.match(/HTTP 200/g) ?? []).length >= 2;
    });
    // One timeline: the request, each status change with its actor, each webhook attempt with status and duration.
    const text = (await timeline.textContent()) ?? '';
    expect(text).toContain('Requested');
    expect(text).toContain('PROCESSING');
    expect(text).toMatch(/by [a-z]/);
    expect(text).toMatch(/HTTP 200[^]*\d+ ms/);
    await shot('payout-timeline');
  });

  it('resolves a PENDING payout', async () => {
    const client = await MerchantClient.connect(t.url, { ...created, webhook_secret: '', wallet_id: '' }, 'v2');
    const m = await admin(t.url, 'GET', `/admin/v1/merchants/${created.merchant_id}`);
    const wallet = (m.body.wallets as { wallet_id: string }[])[0]?.wallet_id as string;
    const p = await initiateOk(
      client,
      payoutRequest('nested', {
        wallet_id: wallet,
        amount: '10.00',
        beneficiary_ifsc: SANDBOX.ifsc,
        beneficiary_acc_number: SANDBOX.pending,
      }),
    );
    const id = p.transaction_id as string;
    await waitForStatus(t.url, id, 'PENDING');
    await go(`#/payouts/${id}`);
    await page.getByLabel('Outcome').selectOption('SUCCESS');
    // Resolving asks for confirmation, naming the payout (consoleLayout.browser.test.ts checks the question).
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Resolve', exact: true }).click();
    await waitForStatus(t.url, id, 'SUCCESS');
    await page.locator('.badge.SUCCESS').first().waitFor();
    // The history names the operator who resolved it.
    await page.getByRole('list', { name: 'Timeline' }).getByText('operator:fin-b@example.test').first().waitFor();
  });

  it('records a return by the bank of a SUCCESS payout, with its reason', async () => {
    const client = await MerchantClient.connect(t.url, { ...created, webhook_secret: '', wallet_id: '' }, 'v2');
    const m = await admin(t.url, 'GET', `/admin/v1/merchants/${created.merchant_id}`);
    const wallet = (m.body.wallets as { wallet_id: string }[])[0]?.wallet_id as string;
    const p = await initiateOk(
      client,
      payoutRequest('nested', {
        wallet_id: wallet,
        amount: '3.00',
        beneficiary_ifsc: SANDBOX.ifsc,
        beneficiary_acc_number: SANDBOX.success,
      }),
    );
    const id = p.transaction_id as string;
    await waitForStatus(t.url, id, 'SUCCESS');
    await go(`#/payouts/${id}`);
    await page.getByLabel('Reason (the merchant sees it)').fill('Beneficiary account closed');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Return', exact: true }).click();
    const done = await waitForStatus(t.url, id, 'REFUNDED');
    expect(done.return_reason).toBe('Beneficiary account closed');
    await page.locator('.badge.REFUNDED').first().waitFor();
    await page.getByText('Returned by the beneficiary bank: Beneficiary account closed').first().waitFor();
  });

  it('replays a failed webhook from the deliveries page', async () => {
    const client = await MerchantClient.connect(t.url, { ...created, webhook_secret: '', wallet_id: '' }, 'v2');
    const m = await admin(t.url, 'GET', `/admin/v1/merchants/${created.merchant_id}`);
    const wallet = (m.body.wallets as { wallet_id: string }[])[0]?.wallet_id as string;
    const p = await initiateOk(
      client,
      payoutRequest('nested', { wallet_id: wallet, amount: '5.00', callback_url: `${receiver.url}/flaky` }),
    );
    const failed = (await eventually(async () => {
      const res = await admin(
        t.url,
        'GET',
        `/admin/v1/webhooks/deliveries?subject_id=${p.transaction_id}&state=failed`,
      );
      return (res.body.data as { id: string }[])[0] ?? null;
    }, 20_000)) as { id: string };
    failing = false;
    await go('#/webhooks');
    await shot('webhooks');
    await page
      .getByRole('button', { name: `Replay ${failed.id}` })
      .first()
      .click();
    await page.getByText(`Delivery ${failed.id} queued again.`).waitFor();
    await eventually(async () => {
      const res = await admin(t.url, 'GET', `/admin/v1/webhooks/deliveries?subject_id=${p.transaction_id}`);
      return (res.body.data as { id: string; state: string }[]).find((d) => d.id === failed.id)?.state === 'delivered';
    });
  });

  it('shows a bulk batch sent through the API with every item, each accepted one leading to its payout', async () => {
    const client = await MerchantClient.connect(t.url, { ...created, webhook_secret: '', wallet_id: '' }, 'v2');
    const m = await admin(t.url, 'GET', `/admin/v1/merchants/${created.merchant_id}`);
    const wallet = (m.body.wallets as { wallet_id: string }[])[0]?.wallet_id as string;
    batchId = senderId('batch');
    const item = (amount: string) => ({
      sender_id: senderId('bk'),
      wallet_id: wallet,
      payment_mode: 'IMPS',
      amount,
      beneficiary: { ...PLAIN_BENEFICIARY },
    });
    const sent = await client.post('/payout/v1/bulk', {
      batch_id: batchId,
      items: [item('20.00'), item('900000.00'), item('15.00')],
    });
    expect(sent.body.resp_code).toBe(2000);
    const verdicts = (sent.data?.items ?? []) as { resp_code: number; transaction_id?: string }[];
    const accepted = verdicts.filter((v) => v.resp_code === 2000).map((v) => v.transaction_id as string);
    expect(accepted).toHaveLength(2);
    await Promise.all(accepted.map((id) => waitForStatus(t.url, id, 'SUCCESS')));

    await go('#/batches');
    await page.getByLabel('Merchant ID').fill(created.merchant_id);
    await page.getByRole('button', { name: 'Apply' }).click();
    const list = page.getByRole('table', { name: 'Bulk payout batches' });
    await list.getByRole('link', { name: batchId }).waitFor();
    await shot('batches');
    await list.getByRole('link', { name: batchId }).click();
    await page.getByRole('heading', { name: `Batch ${batchId}` }).waitFor();
    await expectText(page.getByTestId('batch-summary'), /3 items: 2 accepted, 1 refused/);
    const items = page.getByRole('table', { name: 'Batch items' });
    // The heading comes before the items (they load separately): wait for the rows, then count them.
    await items.locator('tbody tr').nth(2).waitFor();
    await expect(items.locator('tbody tr').count()).resolves.toBe(3);
    const text = (await items.textContent()) ?? '';
    const refused = verdicts.find((v) => v.resp_code !== 2000) as { resp_code: number };
    expect(text).toMatch(new RegExp(`refused${refused.resp_code} `));
    for (const id of accepted) expect(text).toContain(id);
    await shot('batch');
    await items.getByRole('link', { name: accepted[0] as string }).click();
    await page.getByRole('heading', { name: 'Payout', exact: true }).waitFor();
    await page
      .getByText(accepted[0] as string)
      .first()
      .waitFor();
  });

  it("exports a wallet statement as CSV whose closing balance is the wallet's balance", async () => {
    const m = await admin(t.url, 'GET', `/admin/v1/merchants/${created.merchant_id}`);
    const wallet = (m.body.wallets as { wallet_id: string }[])[0]?.wallet_id as string;
    await go(`#/wallets/${wallet}`);
    await page.getByRole('table', { name: 'Statement' }).waitFor();
    await shot('wallet-statement');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('csv').click()]);
    const csv = await readFile((await download.path()) as string, 'utf8');
    const lines = csv.trimEnd().split('\r\n');
    expect(lines[0]).toMatch(/^entry_id,created_at,kind,amount,balance/);
    const closing = (lines[lines.length - 1] as string).split(',');
    expect(closing[2]).toBe('closing_balance');
    expect(closing[4]).toBe(await balanceOf(wallet));
    await go('#/');
    await page.locator('.chart svg').waitFor();
    await shot('overview');
    await go('#/audit');
    await page.getByRole('table').waitFor();
    await shot('audit');
    await signOut();
  });

  it('sets the beneficiary verification of a merchant (admin)', async () => {
    await signIn('admin@example.test');
    await go(`#/merchants/${other.merchant_id}`);
    await page.getByLabel('Verification before payouts').selectOption('required');
    await page.getByLabel('Minimum name match score (0–100)').fill('85');
    await page.getByRole('button', { name: 'Save verification' }).click();
    await page.getByText('Verification setting saved.').waitFor();
    await expectText(page.getByTestId('verification'), /required \(name match ≥ 85\)/);
    const m = await admin(t.url, 'GET', `/admin/v1/merchants/${other.merchant_id}`);
    expect(m.body).toMatchObject({ beneficiary_verification: 'required', min_name_match_score: 85 });
    await signOut();
  });

  it('sets the default scheme of plain-credential tokens (admin)', async () => {
    await signIn('admin@example.test');
    await go(`#/merchants/${other.merchant_id}`);
    await expectText(page.getByTestId('default-scheme'), /v2/);
    await page.getByLabel('Scheme of plain-credential tokens').selectOption('v1');
    await page.getByRole('button', { name: 'Save scheme' }).click();
    await page.getByText('Default scheme saved.').waitFor();
    await expectText(page.getByTestId('default-scheme'), /v1/);
    const m = await admin(t.url, 'GET', `/admin/v1/merchants/${other.merchant_id}`);
    expect(m.body).toMatchObject({ default_scheme: 'v1' });
    await signOut();
  });

  it('signs a merchant in with its keys and shows only its own data', async () => {
    await context.clearCookies();
    await page.goto(`${t.url}/console`);
    await page.getByRole('button', { name: 'Merchant' }).click();
    await page.getByLabel('API key').fill(created.api_key);
    await page.getByLabel('Secret key').fill(created.secret_key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Balance' }).waitFor();
    const m = await admin(t.url, 'GET', `/admin/v1/merchants/${created.merchant_id}`);
    const wallet = (m.body.wallets as { wallet_id: string; balance: string }[])[0];
    // Indian grouping: the last three digits, then pairs (₹4,612.00).
    const [whole, paise] = (wallet?.balance ?? '').split('.') as [string, string];
    const grouped = whole.replace(/\B(?=(\d{2})*\d{3}$)/g, ',');
    await expectText(page.getByTestId('merchant-balance'), `₹${grouped}.${paise}`);
    await shot('merchant-balance');
    await go('#/payouts');
    const payouts = page.getByRole('table', { name: 'Your payouts' });
    // The table's header comes before its rows (loaded separately): wait for a settled payout's row.
    await payouts.locator('tbody tr').filter({ hasText: 'SUCCESS' }).first().waitFor();
    const text = (await payouts.textContent()) ?? '';
    const theirs = await admin(t.url, 'GET', `/admin/v1/payouts?merchant_id=${other.merchant_id}`);
    expect((theirs.body.data as unknown[]).length).toBeGreaterThan(0);
    for (const p of theirs.body.data as { transaction_id: string }[]) expect(text).not.toContain(p.transaction_id);
    const peek = await page.evaluate(
      async (w) => (await fetch(`/console/api/merchant/wallets/${w}/statement`)).status,
      other.wallet_id,
    );
    expect(peek).toBe(404);
    const adminPeek = await page.evaluate(async () => (await fetch('/admin/v1/payouts')).status);
    expect(adminPeek).toBe(401);

    await go('#/batches');
    await page.getByRole('table', { name: 'Your batches' }).getByRole('link', { name: batchId }).click();
    await page.getByRole('heading', { name: `Batch ${batchId}` }).waitFor();
    const rows = page.getByRole('table', { name: 'Batch items' }).locator('tbody tr');
    await rows.nth(2).waitFor();
    await expect(rows.count()).resolves.toBe(3);
    await shot('merchant-batch');

    const client = await MerchantClient.connect(t.url, { ...created, webhook_secret: '', wallet_id: '' }, 'v2');
    const collection = await initiateCollection(client, { amount: '99.00' });
    await go('#/collections');
    await page.getByRole('link', { name: collection.txnId }).click();
    const qr = page.getByRole('img', { name: `UPI QR code for collection ${collection.txnId}` });
    await qr.waitFor();
    await eventually(() => qr.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth > 0));
    const link = page.getByRole('link', { name: 'Open the payment page' });
    expect(await link.getAttribute('href')).toMatch(/\/pay\//);
    await shot('merchant-collection-qr');
  });
});
