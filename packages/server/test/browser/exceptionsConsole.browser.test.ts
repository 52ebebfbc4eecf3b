import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { camt053 } from '../support/bankStatements.ts';
import { ARTIFACTS, CHROMIUM, launchBrowser } from '../support/browser.ts';
import { createOperator, TEST_PASSWORD } from '../support/consoleClient.ts';
import { admin, http } from '../support/merchantClient.ts';
import { refusedPspReport } from '../support/refusedReport.ts';
import { fixedClock } from '../support/testClock.ts';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../support/testServer.ts';
import { eventually } from '../support/webhookReceiver.ts';

/**
 * The console's exceptions queue (docs/operator/console.md) in Debian's chromium driven by playwright-core: exceptions
 * from two reconciliation statements (money Payrail does not know of) and from a signed PSP notification about a
 * sandbox payout (another connector's payout: refused), listed open first and oldest first with the amount at stake
 * and their age, filtered, opened with what was reported beside what Payrail holds, and one dismissed by a finance
 * operator; a viewer reads but cannot resolve. The server's clock is fixed and the browser's is set to it, so the
 * ages on the page depend on no real date.
 */
const hasChromium = existsSync(CHROMIUM);

if (!hasChromium && !process.env.CI) {
  console.warn(`exceptions console browser test skipped: no chromium at ${CHROMIUM} (apt-get install -y chromium)`);
}

describe.runIf(!hasChromium && process.env.CI)('exceptions console in a browser (CI)', () => {
  it('needs chromium', () => {
    expect.fail(`chromium is missing at ${CHROMIUM}: .ci/run installs it (apt-get install -y chromium)`);
  });
});

const SECRET = `psp_${randomBytes(24).toString('hex')}`;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** 2026-05-01 10:00 IST. */
const START = Date.UTC(2026, 4, 1, 4, 30);

type Row = Record<string, unknown>;

describe.runIf(hasChromium)('the exceptions queue in the console (chromium)', { timeout: 120_000 }, () => {
  const clock = fixedClock(START);
  let t: TestServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  const pageErrors: string[] = [];
  /** The exceptions, oldest first: dismissed by the API, unmatched 42.00, refused report about the payout. */
  let resolvedFirst: string;
  let unmatched: string;
  let refused: string;
  let payoutId: string;

  const importStatement = async (xml: string): Promise<Row> => {
    const res = await http(t.url, 'POST', '/admin/v1/reconciliation/statements', {
      rawBody: xml,
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/xml' },
    });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    return (res.body.runs as Row[])[0] as Row;
  };
  const openExceptionsOf = async (runId: string): Promise<Row[]> => {
    const res = await admin(t.url, 'GET', '/admin/v1/exceptions?state=open');
    return (res.body.data as Row[]).filter((e) => e.source_ref === runId);
  };

  beforeAll(async () => {
    t = await startTestServer('pglite', { env: { PAYRAIL_PSP_NOTIFY_SECRET: SECRET }, clock });

    // Day 0: a credit nobody announced; its exception is dismissed through the API at once (the oldest of all).
    const first = await importStatement(
      camt053({
        date: '2026-04-29',
        entries: [{ direction: 'credit', amount: '10.00', remittance: 'Unknown sender' }],
      }),
    );
    [{ exception_id: resolvedFirst }] = (await openExceptionsOf(first.run_id as string)) as [{ exception_id: string }];
    const dismissed = await admin(t.url, 'POST', `/admin/v1/exceptions/${resolvedFirst}/resolve`, {
      action: 'dismiss',
      reason: 'Deposit refund, booked by hand',
    });
    expect(dismissed.status, JSON.stringify(dismissed.body)).toBe(200);

    // Day 1: a debit Payrail never sent.
    clock.advance(DAY);
    const second = await importStatement(
      camt053({ date: '2026-04-30', entries: [{ direction: 'debit', amount: '42.00', utr: '400000000001' }] }),
    );
    [{ exception_id: unmatched }] = (await openExceptionsOf(second.run_id as string)) as [{ exception_id: string }];

    // Day 2: a PSP says a sandbox payout succeeded; only manual payouts take notifications, so it is refused.
    clock.advance(DAY);
    ({ payoutId, exceptionId: refused } = await refusedPspReport(t.url, SECRET, clock(), 'UTR0000CONSOLE'));

    await Promise.all([
      createOperator(t.url, 'finance@example.test', 'finance'),
      createOperator(t.url, 'viewer@example.test', 'viewer'),
    ]);
    // The browser reads the time of the server's clock, two hours after the third day began.
    clock.advance(DAY + 2 * HOUR);
    browser = await launchBrowser();
    page = await browser.context.newPage();
    await page.clock.setFixedTime(clock());
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

  /** Every table sits inside its card at this width: no table is wider than its scrolling wrapper, no page scroll. */
  const expectTablesFit = async () => {
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
    }));
    expect(sizes.page).toBeLessThanOrEqual(sizes.viewport);
    expect(sizes.wraps.length).toBeGreaterThan(0);
    for (const w of sizes.wraps) {
      expect({ ...w, scroll: Math.min(w.scroll, w.client) }, `${w.caption} overflows`).toEqual(w);
      expect(w.right).toBeLessThanOrEqual(sizes.main);
    }
  };

  it('lists the open exceptions first, oldest first, with the amount at stake, the payout and the age', async () => {
    await signIn('finance@example.test');
    // The open count beside the section's name.
    await eventually(
      async () => (await page.getByTestId('open-exceptions').textContent())?.startsWith('2'),
      10_000,
      50,
    );
    await page.getByRole('link', { name: /^Exceptions/ }).click();
    await page.getByRole('heading', { name: 'Exceptions', exact: true }).waitFor();
    await eventually(async () => (await rows('Open exceptions')).length === 2, 10_000, 50);
    const headings = await page.getByRole('heading', { level: 2 }).allInnerTexts();
    expect(headings.indexOf('Open, oldest first')).toBeLessThan(headings.indexOf('Resolved, oldest first'));

    const open = await rows('Open exceptions');
    expect(open[0]).toContain(unmatched);
    expect(open[0]).toContain('unmatched');
    expect(open[0]).toContain('₹42.00');
    expect(open[0]).toContain('reconciliation');
    expect(open[0]).toContain('money moved that Payrail does not know of');
    expect(open[0]).toMatch(/\| 2 d 2 h$/);
    expect(open[1]).toContain(refused);
    expect(open[1]).toContain('report_refused');
    expect(open[1]).toContain('₹150.25');
    expect(open[1]).toContain(payoutId);
    expect(open[1]).toContain('psp_notify');
    expect(open[1]).toMatch(/\| 1 d 2 h$/);
    // The payout links to its page.
    const table = page.getByRole('region', { name: 'Open exceptions' });
    expect(await table.getByRole('link', { name: payoutId }).getAttribute('href')).toBe(`#/payouts/${payoutId}`);

    // The oldest exception of all comes last: it is resolved.
    await eventually(async () => (await rows('Resolved exceptions')).length === 1, 10_000, 50);
    const [resolved] = await rows('Resolved exceptions');
    expect(resolved).toContain(resolvedFirst);
    expect(resolved).toContain('₹10.00');
    expect(resolved).toContain('dismiss');
    expect(resolved).toContain('operator:admin-token');
    expect(resolved).toContain('3 d 2 h');

    await page.screenshot({ path: join(ARTIFACTS, 'exceptions.png'), fullPage: true });
    await expectTablesFit();
  });

  it('filters by kind and by state', async () => {
    await page.getByLabel('Kind').selectOption('report_refused');
    await page.getByRole('button', { name: 'Apply' }).click();
    await eventually(async () => (await rows('Open exceptions')).length === 1, 10_000, 50);
    expect((await rows('Open exceptions'))[0]).toContain(refused);
    await eventually(async () => (await rows('Resolved exceptions'))[0] === 'No resolved exception.', 10_000, 50);

    await page.getByLabel('Kind').selectOption('');
    await page.getByLabel('State').selectOption('resolved');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('heading', { name: 'Open, oldest first' }).waitFor({ state: 'detached' });
    await eventually(async () => (await rows('Resolved exceptions'))[0]?.includes(resolvedFirst) ?? false, 10_000, 50);
    expect(await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href')).toBe(
      '/admin/v1/exceptions?format=csv&state=resolved',
    );

    await page.getByLabel('State').selectOption('');
    await page.getByRole('button', { name: 'Apply' }).click();
    await eventually(async () => (await rows('Open exceptions')).length === 2, 10_000, 50);
  });

  it('shows what was reported beside what Payrail holds, and offers only the actions the exception allows', async () => {
    await page.getByRole('region', { name: 'Open exceptions' }).getByRole('link', { name: refused }).click();
    await page.getByRole('heading', { name: 'Exception', exact: true }).waitFor();
    await page.getByRole('heading', { name: 'Reported and held' }).waitFor();
    const facts = await rows('What was reported beside what Payrail holds');
    const fact = (field: string) => facts.find((r) => r.startsWith(`${field} `) || r.startsWith(`${field} |`));
    expect(fact('status')).toMatch(/^status differs \| SUCCESS \| (INITIATED|PROCESSING|PENDING)$/);
    expect(fact('utr')).toBe('utr | UTR0000CONSOLE | —');
    expect(fact('amount')).toBe('amount | — | ₹150.25');
    expect(fact('connector')).toBe('connector | — | sandbox');
    const api = await admin(t.url, 'GET', `/admin/v1/exceptions/${refused}`);
    const offered = await page
      .getByLabel('Action')
      .locator('option')
      .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value).filter(Boolean));
    expect(offered).toEqual(api.body.allowed_actions);
    expect(offered).toEqual(['apply_as_reported', 'dismiss']);
    await page.screenshot({ path: join(ARTIFACTS, 'exception-detail.png'), fullPage: true });
    await expectTablesFit();
  });

  it('a finance operator dismisses one with a reason: resolved, audited, and the open count goes down', async () => {
    await page.goto(`${t.url}/console#/exceptions/${unmatched}`);
    await page.getByRole('heading', { name: 'Reported and held' }).waitFor();
    const offered = await page
      .getByLabel('Action')
      .locator('option')
      .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(offered).toEqual(['dismiss']);
    // A reason of spaces is no reason: nothing is sent.
    await page.getByLabel(/^Reason/).fill('   ');
    await page.getByRole('button', { name: 'Resolve' }).click();
    await page.getByText('Say why the exception is resolved this way').waitFor();
    expect((await admin(t.url, 'GET', `/admin/v1/exceptions/${unmatched}`)).body.state).toBe('open');

    await page.getByLabel(/^Reason/).fill('Bank charge, booked by hand');
    await page.getByRole('button', { name: 'Resolve' }).click();
    await page.getByText('Resolved: dismiss.').waitFor();
    await page
      .getByTestId('exception-resolution')
      .getByText(/Bank charge, booked by hand/)
      .waitFor();
    expect(await page.getByTestId('exception-resolution').innerText()).toContain('finance@example.test');
    expect(await page.getByRole('button', { name: 'Resolve' }).count()).toBe(0);
    await eventually(
      async () => (await page.getByTestId('open-exceptions').textContent())?.startsWith('1'),
      10_000,
      50,
    );

    const after = await admin(t.url, 'GET', `/admin/v1/exceptions/${unmatched}`);
    expect(after.body).toMatchObject({
      state: 'resolved',
      allowed_actions: [],
      resolution: { action: 'dismiss', reason: 'Bank charge, booked by hand', by: 'finance@example.test' },
    });
    const audit = await admin(t.url, 'GET', '/admin/v1/audit');
    expect(audit.body.data).toContainEqual(
      expect.objectContaining({
        action: 'exception.resolve',
        actor: 'finance@example.test',
        outcome: 'ok',
        detail: expect.stringContaining('Bank charge, booked by hand'),
      }),
    );

    await page.getByRole('link', { name: 'All exceptions' }).click();
    // A table's one row is 'Loading…' until its page comes: wait for the exception itself, in each table.
    await eventually(async () => (await rows('Open exceptions'))[0]?.includes(refused), 10_000, 50);
    expect(await rows('Open exceptions')).toHaveLength(1);
    await eventually(async () => (await rows('Resolved exceptions'))[0]?.includes(resolvedFirst), 10_000, 50);
    const resolved = await rows('Resolved exceptions');
    expect(resolved).toHaveLength(2);
    expect(resolved[0]).toContain(resolvedFirst);
    expect(resolved[1]).toContain(unmatched);
    expect(resolved[1]).toContain('finance@example.test');
  });

  it('a viewer reads an exception but is offered no resolution', async () => {
    await signIn('viewer@example.test');
    await page.goto(`${t.url}/console#/exceptions/${refused}`);
    await page.getByRole('heading', { name: 'Reported and held' }).waitFor();
    await page.getByText('A finance operator resolves exceptions.').waitFor();
    expect(await page.getByRole('button', { name: 'Resolve' }).count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
