import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { camt053 } from '../support/bankStatements.ts';
import { ARTIFACTS, BROWSER_TESTS, CHROMIUM, launchBrowser } from '../support/browser.ts';
import { createOperator, TEST_PASSWORD } from '../support/consoleClient.ts';
import { admin } from '../support/merchantClient.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';

// Without chromium the file is skipped, and says so; in CI (CI=1) it runs and fails in launchBrowser instead.
if (!BROWSER_TESTS) {
  console.warn(`reconciliation console e2e test skipped: no chromium at ${CHROMIUM} (apt-get install -y chromium)`);
}

/** The console's reconciliation page in a real browser: import, the run with its exceptions first, a close. */
describe.skipIf(!BROWSER_TESTS)('reconciliation in the console', { timeout: 120_000 }, () => {
  let t: TestServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let dir: string;

  beforeAll(async () => {
    t = await startTestServer('pglite');
    dir = await mkdtemp(join(tmpdir(), 'payrail-recon-console-'));
    await Promise.all([
      createOperator(t.url, 'fin@example.test', 'finance'),
      createOperator(t.url, 'view@example.test', 'viewer'),
    ]);
    browser = await launchBrowser();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const signIn = async (email: string) => {
    await browser.context.clearCookies();
    await page.goto(`${t.url}/console`);
    await page.getByRole('button', { name: 'Operator' }).click();
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  };

  it('finance imports a statement, opens its run (exceptions first) and closes one with a reason', async () => {
    const file = join(dir, 'statement.xml');
    await writeFile(
      file,
      camt053({
        date: '2026-05-04',
        entries: [
          { direction: 'credit', amount: '10.00', remittance: 'Unknown sender' },
          { direction: 'debit', amount: '2.50', utr: '300000000001' },
        ],
      }),
    );
    await signIn('fin@example.test');
    await page.getByRole('link', { name: 'Reconciliation' }).click();
    await page.getByRole('heading', { name: 'Reconciliation' }).waitFor();
    await page.getByLabel('camt.053 (XML) or MT940 file').setInputFiles(file);
    await page.getByRole('button', { name: 'Import' }).click();
    await page.getByText('Imported: STMT-2026-05-04, 2 open exception(s).').waitFor();
    await page.getByRole('link', { name: /^RR/ }).first().click();
    await page.getByRole('heading', { name: 'Reconciliation run' }).waitFor();
    await page.getByTestId('recon-summary').getByText('2 transactions, 2 open exception(s)').waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'reconciliation-run-desktop.png'), fullPage: true });

    const first = page.getByRole('region', { name: 'Exceptions, open first' }).locator('tbody tr').first();
    await first.getByPlaceholder('Reason').fill('Refund from a supplier, booked by hand');
    await first.getByRole('button', { name: 'Close' }).click();
    await page.getByTestId('recon-summary').getByText('2 transactions, 1 open exception(s)').waitFor();
    await page.getByText(/closed by fin@example\.test .*: Refund from a supplier, booked by hand/).waitFor();

    const audit = await admin(t.url, 'GET', '/admin/v1/audit');
    expect(audit.body.data).toContainEqual(
      expect.objectContaining({
        action: 'reconciliation.close',
        actor: 'fin@example.test',
        detail: expect.stringContaining('Refund from a supplier, booked by hand'),
      }),
    );
  });

  it('a viewer reads the run but has no import form and no Close button', async () => {
    await signIn('view@example.test');
    await page.goto(`${t.url}/console#/reconciliation`);
    await page.getByRole('heading', { name: 'Reconciliation' }).waitFor();
    await page.getByRole('link', { name: /^RR/ }).first().waitFor();
    expect(await page.getByRole('button', { name: 'Import' }).count()).toBe(0);
    await page.getByRole('link', { name: /^RR/ }).first().click();
    await page.getByTestId('recon-summary').waitFor();
    expect(await page.getByRole('button', { name: 'Close' }).count()).toBe(0);
  });
});
