import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulateOnce } from '../../../cli/src/bankSimulator.ts';
import { BANKFILE_ENV } from '../support/bankFiles.ts';
import { mt940 } from '../support/bankStatements.ts';
import { ARTIFACTS, CHROMIUM, launchBrowser } from '../support/browser.ts';
import { createOperator, TEST_PASSWORD } from '../support/consoleClient.ts';
import { fundedMerchant, initiateOk, payoutRequest, SANDBOX, waitForStatus } from '../support/payoutFixtures.ts';
import { movableClock } from '../support/testClock.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';
import { eventually } from '../support/webhookReceiver.ts';

/**
 * The console's bank-file and reconciliation pages in Debian's chromium driven by playwright-core: the files cut
 * and the bank's files (a failed one with its reason), then the runs of the statements that came through the
 * inbox (camt.053 and MT940), a run's exceptions listed before its matched transactions, and an exception closed
 * with a reason. One server, with the bank files in a folder the test plays the bank in. The server's clock and the
 * bank's start at START, so the files, statements and runs are dated the same on any day the test runs.
 */
const hasChromium = existsSync(CHROMIUM);

/** 2026-11-25 15:00 IST: when the payouts are sent, cut, answered and reconciled. */
const START = Date.UTC(2026, 10, 25, 9, 30);
/** The MT940 statement's day: one on which no payout succeeded, so its only exception is its unknown credit. */
const MT940_DAY = '2026-11-24';

if (!hasChromium && !process.env.CI) {
  console.warn(`bank-file console browser test skipped: no chromium at ${CHROMIUM} (apt-get install -y chromium)`);
}

describe.runIf(!hasChromium && process.env.CI)('bank-file console pages in a browser (CI)', () => {
  it('needs chromium', () => {
    expect.fail(`chromium is missing at ${CHROMIUM}: .ci/run installs it (apt-get install -y chromium)`);
  });
});

describe.runIf(hasChromium)('bank files and reconciliation in the console (chromium)', () => {
  let t: TestServer;
  let dir: string;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  const pageErrors: string[] = [];
  const ids: string[] = [];
  // Time runs on from START as it does for the server, whose timers and leases follow the system's.
  const clock = movableClock();
  clock.advance(START - clock());

  /** Puts a file in the inbox as a bank does (written aside, then renamed) and waits until it has been read. */
  const toInbox = async (name: string, text: string) => {
    await writeFile(join(dir, 'inbox', `.${name}.part`), text);
    await rename(join(dir, 'inbox', `.${name}.part`), join(dir, 'inbox', name));
    await eventually(async () => !(await readdir(join(dir, 'inbox'))).includes(name), 20_000, 50);
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'payrail-bank-console-'));
    t = await startTestServer('pglite', { env: { ...BANKFILE_ENV, PAYRAIL_BANKFILE_DIR: dir }, clock });
    const funded = await fundedMerchant(t.url, 'v2');
    for (const account of [SANDBOX.success, SANDBOX.failure]) {
      const p = await initiateOk(
        funded.client,
        payoutRequest('nested', {
          wallet_id: funded.merchant.wallet_id,
          amount: '150.25',
          beneficiary_ifsc: SANDBOX.ifsc,
          beneficiary_acc_number: account,
        }),
      );
      ids.push(p.transaction_id as string);
    }
    for (const id of ids) await waitForStatus(t.url, id, 'PROCESSING');
    // The bank answers: a status report, a notification and a statement; then a file it could not have meant.
    await simulateOnce(dir, { statement: true, now: () => new Date(clock()) });
    await waitForStatus(t.url, ids[0] as string, 'SUCCESS');
    await eventually(async () => (await readdir(join(dir, 'inbox'))).length === 0, 20_000, 50);
    await toInbox('garbage.xml', 'this is not a bank file');
    // An MT940 statement with an entry Payrail knows nothing of: an exception to close.
    await toInbox(
      'STATEMENT.sta',
      mt940({
        id: 'MT940-CONSOLE',
        date: MT940_DAY,
        entries: [{ direction: 'credit', amount: '42.00', bankRef: 'UNKNOWN1', remittance: 'Unknown sender' }],
      }),
    );
    await createOperator(t.url, 'finance@example.com', 'finance');
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${t.url}/console`);
    await page.getByLabel('E-mail address').fill('finance@example.com');
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** The text of every row of the table with this caption, cells joined by ` | `. */
  const rows = (caption: string) =>
    page
      .locator('table', { has: page.locator('caption', { hasText: caption }) })
      .locator('tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) =>
          Array.from(tr.querySelectorAll('td, th'))
            .map((c) => (c.textContent ?? '').trim())
            .join(' | '),
        ),
      );

  it('lists the file cut, downloadable, and the bank’s files with the failed one’s reason', async () => {
    await page.getByRole('link', { name: 'Bank files' }).click();
    await page.getByRole('heading', { name: 'Bank files' }).waitFor();
    await page.getByRole('heading', { name: 'Files from the bank, newest first' }).waitFor();
    await eventually(async () => (await rows('Files from the bank')).length >= 5, 10_000, 100);
    const cut = await rows('Bank files cut');
    const total = cut.reduce((n, r) => n + Number(r.split(' | ')[1]), 0);
    expect(total).toBe(2);
    const link = page.getByRole('link', { name: /^PAYRAIL-PR[0-9A-Z]{26}\.xml$/ }).first();
    expect(await link.getAttribute('href')).toMatch(/^\/admin\/v1\/bankfiles\/PR[0-9A-Z]{26}$/);
    const inbound = await rows('Files from the bank');
    const row = (name: string) => inbound.find((r) => r.startsWith(`${name} |`)) ?? '';
    expect(row('garbage.xml')).toContain('failed');
    expect(row('garbage.xml')).toContain('not XML');
    expect(row('STATEMENT.sta')).toContain('MT940');
    expect(row('STATEMENT.sta')).toContain('applied');
    expect(inbound.filter((r) => /PAIN002|CAMT054|CAMT053/.test(r)).every((r) => r.includes('applied'))).toBe(true);
    expect(inbound.some((r) => r.includes('camt.053.001.08'))).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, 'bank-files.png'), fullPage: true });
  });

  it('shows a run’s exceptions before its matched transactions, and closes one with a reason', async () => {
    await page.getByRole('link', { name: 'Reconciliation' }).click();
    await page.getByRole('heading', { name: 'Reconciliation', exact: true }).waitFor();
    await eventually(async () => (await rows('Reconciliation runs')).length === 2, 10_000, 100);
    // The camt.053 from the simulated bank: the paid payout matched, the others' absence no exception of its own.
    const runs = await rows('Reconciliation runs');
    expect(runs.some((r) => r.includes('MT940-CONSOLE'))).toBe(true);

    // The MT940's run: one unmatched credit, an open exception.
    await page
      .locator('table', { has: page.locator('caption', { hasText: 'Reconciliation runs' }) })
      .locator('tbody tr', { hasText: 'MT940-CONSOLE' })
      .getByRole('link')
      .first()
      .click();
    await page.getByRole('heading', { name: 'Reconciliation run' }).waitFor();
    // The title shows at once, the sections once the run has loaded: read them then.
    await page.getByTestId('recon-summary').waitFor();
    const headings = await page.getByRole('heading', { level: 2 }).allInnerTexts();
    expect(headings.indexOf('Exceptions')).toBeGreaterThanOrEqual(0);
    expect(headings.indexOf('Exceptions')).toBeLessThan(headings.indexOf('Matched'));
    const open = await rows('Exceptions, open first');
    expect(open).toHaveLength(1);
    expect(open[0]).toContain('unmatched');
    expect(open[0]).toContain('42.00');
    await page.getByLabel(/Reason for closing item/).fill('Refund of a deposit, booked by hand');
    await page.getByRole('button', { name: 'Close' }).click();
    await eventually(
      async () => (await rows('Exceptions, open first'))[0]?.includes('closed by') ?? false,
      10_000,
      100,
    );
    const closed = (await rows('Exceptions, open first'))[0] ?? '';
    expect(closed).toContain('Refund of a deposit, booked by hand');
    expect(await page.getByTestId('recon-summary').innerText()).toContain('0 open exception(s)');
    await page.screenshot({ path: join(ARTIFACTS, 'reconciliation-run.png'), fullPage: true });

    // The simulated bank's camt.053: the successful payout matched.
    await page.goBack();
    await page.getByRole('heading', { name: 'Reconciliation', exact: true }).waitFor();
    await page
      .locator('table', { has: page.locator('caption', { hasText: 'Reconciliation runs' }) })
      .locator('tbody tr', { hasNotText: 'MT940-CONSOLE' })
      .getByRole('link')
      .first()
      .click();
    await page.getByRole('heading', { name: 'Reconciliation run' }).waitFor();
    await page.getByRole('button', { name: /Show the 1 matched transactions/ }).click();
    expect((await rows('Matched transactions')).join('\n')).toContain(ids[0] as string);
    expect(pageErrors).toEqual([]);
  });
});
