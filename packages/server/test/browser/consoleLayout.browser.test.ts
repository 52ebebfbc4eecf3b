import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { camt053 } from '../support/bankStatements.ts';
import { CHROMIUM, launchBrowser } from '../support/browser.ts';
import { initiateOk as initiateCollection, simulate } from '../support/collectionFixtures.ts';
import { ConsoleSession, createOperator, TEST_PASSWORD } from '../support/consoleClient.ts';
import { admin, createMerchant, http, MerchantClient, type TestMerchant } from '../support/merchantClient.ts';
import { initiateOk, payoutRequest, SANDBOX, senderId, waitForStatus } from '../support/payoutFixtures.ts';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../support/testServer.ts';

/**
 * Every page of the operator's and the merchant's console, in Debian's chromium driven by playwright-core, at a
 * 360-pixel phone and a 1280-pixel desktop: no page is wider than its window (tables scroll inside their card),
 * no id or account number breaks over two lines, and ids outside headings are shown short with a copy button.
 * Screenshots of every page at both widths go to a fresh temporary directory (printed), never into the clone.
 */
const hasChromium = existsSync(CHROMIUM);

if (!hasChromium && !process.env.CI) {
  console.warn(`console layout browser test skipped: no chromium at ${CHROMIUM} (apt-get install -y chromium)`);
}

describe.runIf(!hasChromium && process.env.CI)('console layout in a browser (CI)', () => {
  it('needs chromium', () => {
    expect.fail(`chromium is missing at ${CHROMIUM}: .ci/run installs it (apt-get install -y chromium)`);
  });
});

const WIDTHS = [360, 1280] as const;
/** A full id of the console's kinds, as it would appear in text: the pages show these short. */
const FULL_ID = /(?<![\w-])[A-Z]{2}[0-9A-HJKMNP-TV-Z]{26}\b/;
const PLAN = {
  name: 'Standard',
  rules: { IMPS: { slabs: [{ flat: '2.00' }] }, UPI_COLLECTION: { slabs: [{ bps: 100 }] } },
};
const OPERATOR_ENV = {
  PAYRAIL_OPERATOR_LEGAL_NAME: 'Payrail Payments Private Limited',
  PAYRAIL_OPERATOR_GSTIN: '27AAPFU0939F1ZV',
  PAYRAIL_OPERATOR_ADDRESS: '4th Floor, Example House, Lower Parel, Mumbai 400013',
  PAYRAIL_OPERATOR_STATE: '27',
};

type Row = Record<string, unknown>;

/** What one page measured: its width against the window's, ids that wrap, full ids shown outside headings. */
interface Measure {
  scrollWidth: number;
  innerWidth: number;
  wrappedIds: string[];
  fullIds: string[];
}

/** Measures the page in the browser (the function runs there). */
function measure(fullIdSource: string): Measure {
  const fullId = new RegExp(fullIdSource, 'g');
  const wrappedIds: string[] = [];
  for (const el of Array.from(document.querySelectorAll('.short-id, .account-number, .nowrap-id'))) {
    const lineHeight = parseFloat(getComputedStyle(el).lineHeight) || 20;
    if ((el as HTMLElement).getBoundingClientRect().height > lineHeight * 1.6) {
      wrappedIds.push((el as HTMLElement).innerText);
    }
  }
  const fullIds: string[] = [];
  const main = document.querySelector('main');
  if (main) {
    const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || parent.closest('h1, h2, .visually-hidden, .short-id, textarea, pre, code, .secret, option')) {
        continue;
      }
      for (const m of (node.textContent ?? '').match(fullId) ?? []) fullIds.push(m);
    }
  }
  return {
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
    wrappedIds,
    fullIds,
  };
}

describe.runIf(hasChromium)('every console page fits 360 and 1280 px (chromium)', { timeout: 300_000 }, () => {
  let t: TestServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let shots: string;
  let merchant: TestMerchant;
  const ids: Record<string, string> = {};
  const pageErrors: string[] = [];
  let inflight = 0;

  beforeAll(async () => {
    t = await startTestServer('pglite', { env: { PAYRAIL_CREDIT_APPROVAL_ABOVE: '1000.00', ...OPERATOR_ENV } });
    shots = await mkdtemp(join(tmpdir(), 'payrail-console-layout-'));
    console.info(`console layout screenshots: ${shots}`);
    await Promise.all([
      createOperator(t.url, 'admin@example.test', 'admin'),
      createOperator(t.url, 'finance-a@example.test', 'finance'),
      createOperator(t.url, 'finance-b@example.test', 'finance'),
    ]);
    merchant = await createMerchant(t.url, 'Layout Traders Private Limited', '100000.00');
    const m = merchant.merchant_id;
    ids.merchant = m;
    ids.wallet = merchant.wallet_id;
    expect((await admin(t.url, 'PUT', `/admin/v1/merchants/${m}/pricing`, PLAN)).status).toBe(200);
    const client = await MerchantClient.connect(t.url, merchant, 'v2');
    const pay = async (account: string, amount = '100.00') =>
      (
        await initiateOk(
          client,
          payoutRequest('nested', {
            wallet_id: merchant.wallet_id,
            amount,
            beneficiary_acc_number: account,
            beneficiary_ifsc: SANDBOX.ifsc,
            beneficiary_name: 'Asha Ramachandran Venkataraman',
            callback_url: 'http://127.0.0.1:9/hooks',
          }),
        )
      ).transaction_id as string;
    ids.payoutSuccess = await pay(SANDBOX.success);
    ids.payoutFailed = await pay(SANDBOX.failure, '250.00');
    ids.payoutPending = await pay(SANDBOX.pending, '300.00');
    ids.payoutReturned = await pay(SANDBOX.success, '400.00');
    await waitForStatus(t.url, ids.payoutSuccess, 'SUCCESS');
    await waitForStatus(t.url, ids.payoutFailed, 'REFUNDED');
    await waitForStatus(t.url, ids.payoutPending, 'PENDING');
    await waitForStatus(t.url, ids.payoutReturned, 'SUCCESS');
    const returned = await admin(t.url, 'POST', `/admin/v1/payouts/${ids.payoutReturned}/return`, {
      reason: 'Beneficiary account closed',
    });
    expect(returned.status, JSON.stringify(returned.body)).toBe(200);

    // A bulk batch, collections (one settled), a settlement, an invoice.
    ids.batch = senderId('batch');
    const bulk = await client.post('/payout/v1/bulk', {
      batch_id: ids.batch,
      items: [
        payoutRequest('nested', { wallet_id: merchant.wallet_id, amount: '20.00' }),
        payoutRequest('nested', { wallet_id: merchant.wallet_id, amount: '900000.00' }),
      ],
    });
    expect(bulk.body.resp_code, JSON.stringify(bulk.body)).toBe(2000);
    for (const amount of ['500.00', '75.00']) {
      const c = await initiateCollection(client, { amount });
      expect((await simulate(client, c.txnId, 'SUCCESS')).body.respCode).toBe(2000);
      ids.collection = c.txnId;
    }
    const account = await admin(t.url, 'PUT', `/admin/v1/merchants/${m}/settlement`, {
      account_number: SANDBOX.success,
      ifsc: SANDBOX.ifsc,
      holder_name: 'Layout Traders Private Limited',
      schedule: 'manual',
    });
    expect(account.status, JSON.stringify(account.body)).toBe(200);
    const settlement = await admin(t.url, 'POST', '/admin/v1/settlements', { wallet_id: merchant.wallet_id });
    expect(settlement.status, JSON.stringify(settlement.body)).toBe(201);
    ids.settlement = settlement.body.settlement_id as string;
    const month = new Date(Date.now() + 5.5 * 3_600_000).toISOString().slice(0, 7);
    const invoices = await admin(t.url, 'POST', '/admin/v1/invoices/run', { month });
    expect(invoices.status, JSON.stringify(invoices.body)).toBe(200);
    ids.invoice = (invoices.body.invoices as Row[])[0]?.invoice_id as string;

    // A reconciliation run with open exceptions, and a credit that waits for a second operator.
    const statement = await http(t.url, 'POST', '/admin/v1/reconciliation/statements', {
      rawBody: camt053({
        date: '2026-05-04',
        entries: [
          { direction: 'credit', amount: '10.00', remittance: 'Unknown sender with a long remittance text' },
          { direction: 'debit', amount: '2.50', utr: '300000000001' },
        ],
      }),
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/xml' },
    });
    expect(statement.status, JSON.stringify(statement.body)).toBe(201);
    ids.run = (statement.body.runs as Row[])[0]?.run_id as string;
    const exceptions = await admin(t.url, 'GET', '/admin/v1/exceptions?state=open');
    ids.exception = (exceptions.body.data as Row[])[0]?.exception_id as string;
    const finance = await ConsoleSession.signIn(t.url, 'finance-a@example.test');
    const credit = await finance.request('POST', `/admin/v1/wallets/${merchant.wallet_id}/credits`, {
      amount: '5000.00',
      reference: 'layout-approval-1',
    });
    expect(credit.status, JSON.stringify(credit.body)).toBe(202);

    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('request', () => inflight++);
    page.on('requestfinished', () => inflight--);
    page.on('requestfailed', () => inflight--);
  }, 240_000);

  const adminPayout = async (id: string) => (await admin(t.url, 'GET', `/admin/v1/payouts/${id}`)).body;

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** Waits until the page has asked for nothing for a moment: pages render what they load after their heading. */
  const settle = async () => {
    let quiet = 0;
    for (let i = 0; i < 200 && quiet < 4; i++) {
      await page.waitForTimeout(50);
      quiet = inflight === 0 ? quiet + 1 : 0;
    }
  };

  /** Opens the page at each width, screenshots it and gives what does not fit. */
  const check = async (name: string, hash: string): Promise<string[]> => {
    const problems: string[] = [];
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.goto(`${t.url}/console${hash}`);
    await page.locator('main h1').first().waitFor();
    await settle();
    // One load, measured at each width: the page reflows when the window narrows, as a phone's would.
    for (const width of [...WIDTHS].reverse()) {
      await page.setViewportSize({ width, height: width === 360 ? 740 : 860 });
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve(null))));
      await page.screenshot({ path: join(shots, `${name}-${width}.png`), fullPage: true });
      const m = await page.evaluate(measure, FULL_ID.source);
      if (m.scrollWidth > m.innerWidth) problems.push(`${name} at ${width}: ${m.scrollWidth} px wide`);
      for (const id of m.wrappedIds) problems.push(`${name} at ${width}: "${id}" breaks over lines`);
      if (width === 1280) for (const id of new Set(m.fullIds)) problems.push(`${name}: ${id} shown in full`);
    }
    return problems;
  };

  const signIn = async (kind: 'Operator' | 'Merchant', email = 'admin@example.test') => {
    await browser.context.clearCookies();
    await page.setViewportSize({ width: 1280, height: 860 });
    // A fresh load: going to the console's address from itself would only change the hash, keeping the old session.
    await page.goto('about:blank');
    await page.goto(`${t.url}/console#/`);
    await page.getByRole('button', { name: kind, exact: true }).click();
    if (kind === 'Operator') {
      await page.getByLabel('E-mail address').fill(email);
      await page.getByLabel('Password').fill(TEST_PASSWORD);
    } else {
      await page.getByLabel('API key').fill(merchant.api_key);
      await page.getByLabel('Secret key').fill(merchant.secret_key);
    }
    await page.getByRole('button', { name: 'Sign in' }).click();
    // The sign-in page has a main h1 of its own: wait for the signed-in shell (or the refusal, to say it), or a
    // page opened next would race the sign-in's answer (it failed once in CI that way).
    await page.locator('[data-testid="who"], main.signin [role="alert"]').first().waitFor();
    const refusal = page.locator('main.signin [role="alert"]');
    if (await refusal.count()) throw new Error(`sign-in as ${email} refused: ${await refusal.innerText()}`);
  };

  it('every operator page', async () => {
    await signIn('Operator');
    const pages: [string, string][] = [
      ['op-overview', '#/'],
      ['op-merchants', '#/merchants'],
      ['op-merchant', `#/merchants/${ids.merchant}`],
      ['op-wallet', `#/wallets/${ids.wallet}`],
      ['op-payouts', '#/payouts'],
      ['op-payout-success', `#/payouts/${ids.payoutSuccess}`],
      ['op-payout-pending', `#/payouts/${ids.payoutPending}`],
      ['op-payout-returned', `#/payouts/${ids.payoutReturned}`],
      ['op-batches', '#/batches'],
      ['op-batch', `#/batches/${ids.merchant}/${ids.batch}`],
      ['op-collections', '#/collections'],
      ['op-collection', `#/collections/${ids.collection}`],
      ['op-settlements', '#/settlements'],
      ['op-settlement', `#/settlements/${ids.settlement}`],
      ['op-webhooks', '#/webhooks'],
      ['op-approvals', '#/approvals'],
      ['op-exceptions', '#/exceptions'],
      ['op-exception', `#/exceptions/${ids.exception}`],
      ['op-ledger', '#/ledger'],
      ['op-fees', '#/fees'],
      ['op-invoices', '#/invoices'],
      ['op-invoice', `#/invoices/${ids.invoice}`],
      ['op-reconciliation', '#/reconciliation'],
      ['op-reconciliation-run', `#/reconciliation/${ids.run}`],
      ['op-bankfiles', '#/bankfiles'],
      ['op-audit', '#/audit'],
      ['op-operators', '#/operators'],
    ];
    const problems: string[] = [];
    for (const [name, hash] of pages) problems.push(...(await check(name, hash)));
    expect(problems).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('the reconciliation runs name their open results: a run with only an amount mismatch open says so', async () => {
    const paid = await admin(t.url, 'GET', `/admin/v1/payouts/${ids.payoutSuccess}`);
    const statement = await http(t.url, 'POST', '/admin/v1/reconciliation/statements', {
      rawBody: camt053({
        date: '2026-05-05',
        entries: [{ direction: 'debit', amount: '99.00', utr: paid.body.utr_number as string }],
      }),
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/xml' },
    });
    expect(statement.status, JSON.stringify(statement.body)).toBe(201);
    const run = (statement.body.runs as Row[])[0] as Row;
    const results = run.results as Record<string, { count: number; open: number }>;
    expect(results.amount_mismatch).toMatchObject({ count: 1, open: 1 });
    expect(results.unmatched).toMatchObject({ count: 0, open: 0 });
    expect(results.matched?.open).toBe(0);

    await signIn('Operator');
    expect(await check('op-reconciliation-open', '#/reconciliation')).toEqual([]);
    const table = page.getByRole('table', { name: 'Reconciliation runs' });
    const row = (id: string) => table.locator('tbody tr').filter({ has: page.getByRole('link', { name: id }) });
    expect(
      await row(run.run_id as string)
        .getByTestId('run-open')
        .innerText(),
    ).toBe('Amount mismatch 1');
    // The first run has two unknown transactions open, named as such.
    expect(
      await row(ids.run as string)
        .getByTestId('run-open')
        .innerText(),
    ).toBe('Unmatched 2');
  });

  it('approvals show what is credited and whether the reader may approve it, by the rule the server applies', async () => {
    // Two finance operators set up by the same admin operator: neither approves the other's credit.
    const adminSession = await ConsoleSession.signIn(t.url, 'admin@example.test');
    for (const email of ['finance-c@example.test', 'finance-d@example.test']) {
      const made = await adminSession.request('POST', '/admin/v1/operators', {
        email,
        role: 'finance',
        name: email.split('@')[0],
        password: TEST_PASSWORD,
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
    }
    const maker = await ConsoleSession.signIn(t.url, 'finance-c@example.test');
    const credit = await maker.request('POST', `/admin/v1/wallets/${merchant.wallet_id}/credits`, {
      amount: '2500.00',
      reference: 'layout-approval-2',
    });
    expect(credit.status, JSON.stringify(credit.body)).toBe(202);
    const requestId = credit.body.credit_request_id as string;

    const verdicts = async (email: string) => {
      const session = await ConsoleSession.signIn(t.url, email);
      const res = await session.request('GET', '/admin/v1/credit-requests');
      return { session, rows: res.body.data as Row[] };
    };
    const checker = await verdicts('finance-d@example.test');
    const listed = checker.rows.find((r) => r.credit_request_id === requestId) as Row;
    expect(listed).toMatchObject({
      merchant_id: merchant.merchant_id,
      merchant_name: 'Layout Traders Private Limited',
      wallet_id: merchant.wallet_id,
      amount: '2500.00',
      reference: 'layout-approval-2',
      requested_by: 'finance-c@example.test',
      approval: {
        allowed: false,
        refusal: 'lineage_conflict',
        requester_lineage: ['account created by admin@example.test'],
        your_lineage: ['account created by admin@example.test'],
      },
    });
    // The same rule's outcome when approving: refused, nothing credited.
    const refused = await checker.session.request('POST', `/admin/v1/credit-requests/${requestId}/approve`);
    expect(refused.status).toBe(403);
    expect((refused.body.error as Row).code).toBe('lineage_conflict');
    const independent = (await verdicts('finance-b@example.test')).rows.find((r) => r.credit_request_id === requestId);
    expect(independent?.approval).toMatchObject({ allowed: true, refusal: null });
    const own = (await verdicts('finance-c@example.test')).rows.find((r) => r.credit_request_id === requestId);
    expect(own?.approval).toMatchObject({ allowed: false, refusal: 'same_operator' });

    await signIn('Operator', 'finance-d@example.test');
    expect(await check('op-approvals-lineage', '#/approvals')).toEqual([]);
    const row = page
      .getByRole('table', { name: 'Credit requests' })
      .locator('tbody tr')
      .filter({ has: page.getByRole('button', { name: `Approve ${requestId}` }) });
    const text = await row.innerText();
    expect(text).toContain('Layout Traders Private Limited');
    expect(text).toContain('₹2,500.00');
    expect(text).toContain('layout-approval-2');
    expect(text).toMatch(/finance-c@example\.test\s+\d{1,2} \w{3} \d{4}/);
    const rule = await row.getByTestId('approval-rule').innerText();
    expect(rule).toMatch(/you may not approve/);
    expect(rule).toMatch(/not independent of finance-c@example\.test/);
    expect(rule).toContain('finance-c@example.test: account created by admin@example.test');
    expect(rule).toContain('you: account created by admin@example.test');
    await signIn('Operator', 'finance-b@example.test');
    expect(await check('op-approvals-allowed', '#/approvals')).toEqual([]);
    const allowed = page
      .getByRole('table', { name: 'Credit requests' })
      .locator('tbody tr')
      .filter({ has: page.getByRole('button', { name: `Approve ${requestId}` }) });
    expect(await allowed.getByTestId('approval-rule').innerText()).toMatch(/you may approve/);
  });

  it('names the merchant on the wallet and webhook pages; payout lists show the UTR and why a payout is REFUNDED', async () => {
    await signIn('Operator');
    expect(await check('op-wallet-merchant', `#/wallets/${ids.wallet}`)).toEqual([]);
    await page.getByTestId('wallet-merchant').getByText('Layout Traders Private Limited').waitFor();

    expect(await check('op-payouts-utr', '#/payouts')).toEqual([]);
    const payouts = page.getByRole('table', { name: 'Payouts' });
    const headers = await payouts.locator('thead th').allInnerTexts();
    expect(headers).toContain('UTR');
    const rowOf = (id: string) =>
      payouts.locator('tbody tr').filter({ has: page.getByRole('link', { name: id, exact: true }) });
    const returned = await adminPayout(ids.payoutReturned as string);
    expect(await rowOf(ids.payoutReturned as string).innerText()).toContain('returned by the bank');
    expect(await rowOf(ids.payoutReturned as string).innerText()).toContain(returned.utr_number as string);
    expect(await rowOf(ids.payoutFailed as string).innerText()).toContain('failed, refunded');
    expect(await rowOf(ids.payoutSuccess as string).innerText()).not.toMatch(/refunded|returned/);

    expect(await check('op-payout-refund-kind', `#/payouts/${ids.payoutFailed}`)).toEqual([]);
    expect(await page.getByTestId('refund-kind').innerText()).toBe('failed, refunded');

    expect(await check('op-webhooks-merchant', '#/webhooks')).toEqual([]);
    const hooks = page.getByRole('table', { name: 'All deliveries' });
    expect(await hooks.locator('thead th').allInnerTexts()).toContain('Merchant');
    await hooks.getByTestId('merchant-name').getByText('Layout Traders Private Limited').first().waitFor();
  });

  it('Resolve and Return ask first, naming the payout, amount and beneficiary; an invented UTR is marked', async () => {
    await signIn('Operator');
    const questions: string[] = [];
    const answer = (accept: boolean) =>
      page.once('dialog', (dialog) => {
        questions.push(dialog.message());
        void (accept ? dialog.accept() : dialog.dismiss());
      });
    const pending = ids.payoutPending as string;
    expect(await check('op-payout-resolve', `#/payouts/${pending}`)).toEqual([]);
    await page.getByLabel('Outcome').selectOption('SUCCESS');
    answer(false);
    await page.getByRole('button', { name: 'Resolve', exact: true }).click();
    await expect.poll(() => questions.length).toBe(1);
    expect(questions[0]).toContain(`Resolve payout ${pending} of ₹300.00 to Asha Ramachandran Venkataraman`);
    expect(questions[0]).toMatch(/without a UTR: Payrail will invent one, marked "invented"/);
    expect((await adminPayout(pending)).status).toBe('PENDING');
    answer(true);
    await page.getByRole('button', { name: 'Resolve', exact: true }).click();
    await expect.poll(async () => (await adminPayout(pending)).status).toBe('SUCCESS');
    const resolved = await adminPayout(pending);
    expect(resolved.utr_invented).toBe(true);
    expect(resolved.utr_number).toMatch(/^\d{12}$/);
    await page.getByTestId('payout-facts').getByTestId('utr-invented').waitFor();
    await page
      .getByRole('list', { name: 'Timeline' })
      .getByText(`UTR ${resolved.utr_number as string} (invented by Payrail`)
      .waitFor();
    expect(await check('op-payout-invented-utr', `#/payouts/${pending}`)).toEqual([]);
    expect(await check('op-payouts-invented-utr', '#/payouts')).toEqual([]);
    const row = page
      .getByRole('table', { name: 'Payouts' })
      .locator('tbody tr')
      .filter({ has: page.getByRole('link', { name: pending, exact: true }) });
    await row.getByTestId('utr-invented').waitFor();
    // A UTR the bank gave is never marked.
    expect((await adminPayout(ids.payoutSuccess as string)).utr_invented).toBe(false);

    const paid = ids.payoutSuccess as string;
    expect(await check('op-payout-return', `#/payouts/${paid}`)).toEqual([]);
    await page.getByLabel('Reason (the merchant sees it)').fill('Account frozen');
    answer(false);
    await page.getByRole('button', { name: 'Return', exact: true }).click();
    await expect.poll(() => questions.length).toBe(3);
    expect(questions[2]).toContain(
      `Record that the bank returned payout ${paid} of ₹100.00 to Asha Ramachandran Venkataraman`,
    );
    expect(questions[2]).toContain('(reason: Account frozen)');
    expect((await adminPayout(paid)).status).toBe('SUCCESS');
  });

  it('full account numbers for finance and admin, the last four digits for a viewer, from the admin API itself', async () => {
    await createOperator(t.url, 'viewer@example.test', 'viewer');
    const payout = `/admin/v1/payouts/${ids.payoutSuccess as string}`;
    const accountOf = (body: Row) => (body.beneficiary as Row | undefined)?.beneficiary_acc_number;
    const viewer = await ConsoleSession.signIn(t.url, 'viewer@example.test');
    const finance = await ConsoleSession.signIn(t.url, 'finance-b@example.test');
    expect(accountOf((await admin(t.url, 'GET', payout)).body)).toBe(SANDBOX.success);
    expect(accountOf((await finance.request('GET', payout)).body)).toBe(SANDBOX.success);
    expect(accountOf((await viewer.request('GET', payout)).body)).toBe('XXXX0001');
    const listed = (await viewer.request('GET', '/admin/v1/payouts')).body.data as Row[];
    expect(listed.length).toBeGreaterThan(3);
    for (const p of listed) expect(accountOf(p)).toMatch(/^XXXX\d{4}$/);
    const settlementAccount = `/admin/v1/merchants/${merchant.merchant_id}/settlement`;
    expect((await viewer.request('GET', settlementAccount)).body.account_number).toBe('XXXX0001');
    expect((await finance.request('GET', settlementAccount)).body.account_number).toBe(SANDBOX.success);
    // A bank file as delivered holds full numbers: finance may download one (404 here: none cut), a viewer may not.
    expect((await viewer.request('GET', '/admin/v1/bankfiles/PAYRAIL0001')).status).toBe(403);
    expect((await finance.request('GET', '/admin/v1/bankfiles/PAYRAIL0001')).status).not.toBe(403);

    await signIn('Operator', 'viewer@example.test');
    expect(await check('op-payout-viewer', `#/payouts/${ids.payoutSuccess}`)).toEqual([]);
    expect(await page.getByTestId('payout-account').innerText()).toMatch(/^XXXX0001 · IFSC SBOX0000001$/);
    expect(await check('op-payouts-viewer', '#/payouts')).toEqual([]);
    expect(await page.getByRole('table', { name: 'Payouts' }).innerText()).not.toContain(SANDBOX.success);
    await signIn('Operator', 'finance-b@example.test');
    expect(await check('op-payout-finance', `#/payouts/${ids.payoutSuccess}`)).toEqual([]);
    expect(await page.getByTestId('payout-account').innerText()).toBe(`${SANDBOX.success} · IFSC SBOX0000001`);
  });

  it("the overview chart's hours fall on the hour in IST (UTC+05:30), and count every payout of the window", async () => {
    const stats = (await admin(t.url, 'GET', '/admin/v1/stats')).body;
    const hours = stats.payouts_per_hour as ({ hour: string } & Record<string, unknown>)[];
    expect(hours).toHaveLength(24);
    // An IST hour begins at hh:30 UTC.
    for (const h of hours) expect(h.hour).toMatch(/T\d{2}:30:00\.000Z$/);
    expect(stats.window_start).toMatch(/T\d{2}:30:00\.000Z$/);
    const now = Date.now();
    expect(Date.parse(stats.window_end as string)).toBeGreaterThan(now);
    expect(Date.parse(stats.window_end as string) - now).toBeLessThanOrEqual(3_600_000);
    const counted = hours.reduce(
      (n, h) => n + Object.entries(h).reduce((m, [k, v]) => m + (k === 'hour' ? 0 : Number(v)), 0),
      0,
    );
    const all = (await admin(t.url, 'GET', '/admin/v1/payouts?limit=200')).body.data as Row[];
    expect(counted).toBe(all.length);

    await signIn('Operator');
    expect(await check('op-overview-ist-hours', '#/')).toEqual([]);
    const labels = await page.locator('.chart svg text').allTextContents();
    const times = labels.map((l) => l.trim()).filter((l) => /^\d{1,2}:\d{2}/.test(l));
    expect(times.length).toBeGreaterThan(3);
    for (const label of times) expect(label).toMatch(/^\d{1,2}:00\b/);
  });

  it('every merchant page', async () => {
    await signIn('Merchant');
    const pages: [string, string][] = [
      ['m-balance', '#/'],
      ['m-statement', `#/statement/${ids.wallet}`],
      ['m-payouts', '#/payouts'],
      ['m-payout', `#/payouts/${ids.payoutReturned}`],
      ['m-batches', '#/batches'],
      ['m-batch', `#/batches/${ids.batch}`],
      ['m-collections', '#/collections'],
      ['m-collection', `#/collections/${ids.collection}`],
      ['m-settlements', '#/settlements'],
      ['m-settlement', `#/settlements/${ids.settlement}`],
      ['m-webhooks', '#/webhooks'],
      ['m-invoices', '#/invoices'],
      ['m-invoice', `#/invoices/${ids.invoice}`],
    ];
    const problems: string[] = [];
    for (const [name, hash] of pages) problems.push(...(await check(name, hash)));
    expect(problems).toEqual([]);
    expect(pageErrors).toEqual([]);

    // The merchant's list says which REFUNDED payout failed and which the bank returned, with the UTR.
    await page.goto(`${t.url}/console#/payouts`);
    const list = page.getByRole('table', { name: 'Your payouts' });
    const row = (id: string) =>
      list.locator('tbody tr').filter({ has: page.getByRole('link', { name: id, exact: true }) });
    await row(ids.payoutReturned as string).waitFor();
    expect(await row(ids.payoutReturned as string).innerText()).toContain('returned by the bank');
    expect(await row(ids.payoutFailed as string).innerText()).toContain('failed, refunded');

    // The merchant's words: its statement names each line in plain words and by the merchant's own sender_id, and
    // a payout's page and history say nothing of connectors, rail references or worker names.
    const paid = await adminPayout(ids.payoutSuccess as string);
    await page.goto(`${t.url}/console#/statement/${ids.wallet}`);
    const statement = page.getByRole('table', { name: 'Statement' });
    await statement
      .getByText(paid.sender_id as string)
      .first()
      .waitFor();
    expect(await statement.locator('thead th').allInnerTexts()).toContain('Your reference');
    const lines = await statement.locator('tbody tr').allInnerTexts();
    const line = lines.filter((l) => l.includes(paid.sender_id as string)).join('\n');
    expect(line).toMatch(/\bPayout\b/);
    expect(line).toContain('Payout fee');
    expect(line).toContain('GST on payout fee');
    // The settlement's payout is the merchant's own money going to its account, and says so.
    expect(lines.join('\n')).toContain('Settlement to your bank account');
    const all = lines.join('\n');
    expect(all).not.toMatch(/payout_debit|payout_fee|collection_credit|\bPT[0-9A-Z]{26}\b|\bCT[0-9A-Z]{26}\b/);
    await page.goto(`${t.url}/console#/payouts/${ids.payoutSuccess}`);
    await page.getByTestId('payout-facts').waitFor();
    const timeline = page.getByRole('list', { name: 'Timeline' });
    await timeline.getByText('by the bank').first().waitFor();
    const text = await page.locator('main').innerText();
    expect(text).not.toMatch(/Connector|Rail reference|rail:|by worker|operator:/);
  });
});
