import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, CHROMIUM, launchBrowser } from '../support/browser.ts';
import { createOperator, TEST_PASSWORD } from '../support/consoleClient.ts';
import { admin, createMerchant, type TestMerchant } from '../support/merchantClient.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';
import { eventually } from '../support/webhookReceiver.ts';

/**
 * Liens and deposits in the console (docs/operator/liens.md, docs/merchant/funding-a-wallet.md) in Debian's chromium
 * driven by playwright-core: on the wallet page a finance operator sees the virtual account and the deposits, places
 * a lien, releases part of it with a reason (shown on the lien), enforces the rest; a lien above the approval
 * threshold waits, its maker cannot approve it and a second operator does; a viewer is offered no action; the
 * merchant sees the hold as "On hold by the operator" with amount and reason but not who placed it, and what it can
 * spend; an exception of a deposit to an unknown virtual account is assigned to a wallet from its page.
 */
const hasChromium = existsSync(CHROMIUM);

if (!hasChromium && !process.env.CI) {
  console.warn(`wallet liens console browser test skipped: no chromium at ${CHROMIUM} (apt-get install -y chromium)`);
}

describe.runIf(!hasChromium && process.env.CI)('wallet liens console in a browser (CI)', () => {
  it('needs chromium', () => {
    expect.fail(`chromium is missing at ${CHROMIUM}: .ci/run installs it (apt-get install -y chromium)`);
  });
});

describe.runIf(hasChromium)('liens and deposits in the console (chromium)', { timeout: 120_000 }, () => {
  let t: TestServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let merchant: TestMerchant;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    t = await startTestServer('pglite', { env: { PAYRAIL_CREDIT_APPROVAL_ABOVE: '50000.00' } });
    merchant = await createMerchant(t.url, 'Held Shop', '100000.00');
    await Promise.all([
      createOperator(t.url, 'maker@example.test', 'finance'),
      createOperator(t.url, 'checker@example.test', 'finance'),
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
  const LIENS = 'Liens of this wallet';
  const lienRow = (text: string) =>
    page.locator('table', { has: page.locator('caption', { hasText: LIENS }) }).locator('tbody tr', { hasText: text });
  /** The page is no wider than the window at 1280 and 360 pixels. */
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

  it('shows the virtual account and deposits; finance places, releases in part (with its reason) and enforces', async () => {
    const va = (await admin(t.url, 'GET', `/admin/v1/wallets/${merchant.wallet_id}`)).body.virtual_account as {
      number: string;
      ifsc: string;
    };
    const deposit = await admin(t.url, 'POST', '/admin/v1/sandbox/deposits', {
      virtual_account: va.number,
      amount: '2500.00',
      utr: 'UTRCONSOLE0001',
      remitter_name: 'Asha Traders',
      remitter_account: '50100012345678',
      remitter_ifsc: 'HDFC0000123',
    });
    expect(deposit.status, JSON.stringify(deposit.body)).toBe(200);

    await signIn('maker@example.test');
    await go(`#/wallets/${merchant.wallet_id}`, 'Wallet');
    await page.getByTestId('wallet-virtual-account').getByText(va.number).waitFor();
    expect(await page.getByTestId('wallet-virtual-account').innerText()).toContain(va.ifsc);
    await eventually(async () => (await rows('Deposits to this wallet')).some((r) => r.includes('UTRCONSOLE0001')));
    const [depositRow] = await rows('Deposits to this wallet');
    expect(depositRow).toContain('₹2,500.00');
    expect(depositRow).toContain('Asha Traders');
    // A finance operator sees the remitter's account in full ("Who sees full account numbers", console.md).
    expect(depositRow).toContain('50100012345678');
    await page.getByText('No lien on this wallet.').waitFor();
    expect(await page.getByTestId('wallet-available').innerText()).toBe('₹1,02,500.00');

    // Place: ₹500.00, held at once (below the threshold).
    await page.getByLabel('Lien amount (₹)', { exact: true }).fill('500.00');
    await page.getByLabel('Reason (the merchant sees it)').fill('chargeback dispute CB-1042');
    await page.getByRole('button', { name: 'Place lien' }).click();
    await page.getByText(/placed: it holds ₹500\.00 now \(active\)/).waitFor();
    await lienRow('chargeback dispute CB-1042').getByText('active').waitFor();
    const placed = (await rows(LIENS))[0] as string;
    expect(placed).toContain('₹500.00 | ₹500.00 | active | chargeback dispute CB-1042 | maker@example.test');
    expect(placed).toContain('never');
    await eventually(async () => (await page.getByTestId('wallet-available').innerText()) === '₹1,02,000.00');
    await expectFits('wallet-liens');

    // Release ₹200.00 of it with a reason: kept on the lien and shown beside it.
    await lienRow('chargeback dispute CB-1042').getByRole('button', { name: 'Release' }).click();
    const action = page.getByTestId('lien-action');
    await action.getByLabel('Amount (₹; empty: all it holds)').fill('200.00');
    await action.getByLabel('Reason').fill('part of the dispute settled');
    await action.getByRole('button', { name: 'Release' }).click();
    await page.getByText(/released: it holds ₹300\.00 now \(active\)/).waitFor();
    await lienRow('Released: part of the dispute settled').waitFor();
    await eventually(async () => (await page.getByTestId('wallet-available').innerText()) === '₹1,02,200.00');

    // Enforce the rest: it moves to the recovery wallet, the lien is enforced, the balance goes down.
    await lienRow('chargeback dispute CB-1042').getByRole('button', { name: 'Enforce' }).click();
    await page.getByTestId('lien-action').getByLabel('Reason').fill('chargeback lost');
    await page.getByTestId('lien-action').getByRole('button', { name: 'Enforce' }).click();
    await page.getByText(/enforced: it holds ₹0\.00 now \(enforced\)/).waitFor();
    await lienRow('chargeback dispute CB-1042').getByText('enforced', { exact: true }).waitFor();
    await eventually(async () => (await page.getByTestId('wallet-balance').innerText()) === '₹1,02,200.00');
    const verify = await admin(t.url, 'GET', '/admin/v1/ledger/verify');
    expect(verify.body.ok, JSON.stringify(verify.body)).toBe(true);
  });

  it('a lien above the threshold waits; its maker cannot approve it, a second operator does', async () => {
    await signIn('maker@example.test');
    await go(`#/wallets/${merchant.wallet_id}`, 'Wallet');
    await page.getByText(/Held by liens now/).waitFor();
    await page.getByLabel('Lien amount (₹)', { exact: true }).fill('60000.00');
    await page.getByLabel('Reason (the merchant sees it)').fill('regulator freeze order 7');
    await page.getByRole('button', { name: 'Place lien' }).click();
    await page.getByText(/waits for a second operator to approve it/).waitFor();
    await lienRow('regulator freeze order 7').getByText('pending').waitFor();
    await lienRow('regulator freeze order 7')
      .getByRole('button', { name: /^Approve / })
      .click();
    await lienRow('regulator freeze order 7')
      .getByRole('alert')
      .getByText(/different operator/)
      .waitFor();

    await signIn('checker@example.test');
    await go(`#/wallets/${merchant.wallet_id}`, 'Wallet');
    await lienRow('regulator freeze order 7')
      .getByRole('button', { name: /^Approve / })
      .click();
    await page.getByText(/approved: it holds ₹60,000\.00 now \(active\)/).waitFor();
    const row = (await rows(LIENS)).find((r) => r.includes('regulator freeze order 7')) as string;
    // The maker, with the checker on the line below it (a cell's text joins them).
    expect(row).toMatch(/\| maker@example\.test\s*approved by checker@example\.test \|/);
    expect(await page.getByTestId('wallet-on-lien').innerText()).toBe('₹60,000.00');
  });

  it('a viewer reads the liens but is offered no action', async () => {
    await signIn('viewer@example.test');
    await go(`#/wallets/${merchant.wallet_id}`, 'Wallet');
    await lienRow('regulator freeze order 7').waitFor();
    await page.getByText('A finance operator places, releases and enforces liens.').waitFor();
    expect(await page.getByRole('button', { name: 'Place lien' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Release' }).count()).toBe(0);
  });

  it('the merchant sees the hold by the operator with amount and reason, not who placed it', async () => {
    await browser.context.clearCookies();
    await page.goto(`${t.url}/console`);
    await page.getByRole('button', { name: 'Merchant' }).click();
    await page.getByLabel('API key').fill(merchant.api_key);
    await page.getByLabel('Secret key').fill(merchant.secret_key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Balance' }).waitFor();
    const holds = page.getByTestId('merchant-holds');
    await holds.getByText('On hold by the operator').waitFor();
    const hold = await holds.getByTestId('merchant-hold').innerText();
    expect(hold).toContain('₹60,000.00');
    expect(hold).toContain('regulator freeze order 7');
    expect(await page.locator('main').innerText()).not.toMatch(/maker@example\.test|checker@example\.test/);
    expect(await page.getByTestId('merchant-available').innerText()).toMatch(/Available to spend ₹42,200\.00/);
    await expectFits('merchant-holds');
  });

  it('an exception of a deposit to an unknown virtual account is assigned to a wallet from its page', async () => {
    const refused = await admin(t.url, 'POST', '/admin/v1/sandbox/deposits', {
      virtual_account: '12345',
      amount: '75.00',
      utr: 'UTRCONSOLE0002',
      remitter_name: 'Unknown Payer',
      remitter_account: '99990000111',
      remitter_ifsc: 'ICIC0000001',
    });
    expect(refused.status).toBe(202);
    const id = refused.body.exception_id as string;
    await signIn('maker@example.test');
    await go(`#/exceptions/${id}`, 'Exception');
    const actions = await page.locator('#x-action option').allInnerTexts();
    expect(actions).toContain('assign_to_wallet');
    expect(actions).toContain('dismiss');
    await page.getByLabel('Action').selectOption('assign_to_wallet');
    await page.getByLabel('Wallet to credit (wallet id)').fill(merchant.wallet_id);
    await page.getByLabel(/^Reason/).fill('the merchant confirmed the transfer');
    await page.getByRole('button', { name: 'Resolve' }).click();
    await page.getByText('Resolved: assign_to_wallet.').waitFor();
    await page.getByTestId('exception-state').getByText('resolved').waitFor();
    await go(`#/wallets/${merchant.wallet_id}`, 'Wallet');
    await eventually(async () => (await rows('Deposits to this wallet')).some((r) => r.includes('UTRCONSOLE0002')));
    expect(pageErrors).toEqual([]);
  });
});
