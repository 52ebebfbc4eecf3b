import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { encryptJson } from '@payrail/protocol';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, CHROMIUM, launchBrowser } from '../support/browser.ts';
import { createOperator, TEST_PASSWORD } from '../support/consoleClient.ts';
import { createMerchant } from '../support/merchantClient.ts';
import { movableClock } from '../support/testClock.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';

/**
 * The console's overview warns when the upstream account does not cover what merchants hold (treasury coverage
 * below 1, docs/operator/connectors.md "Reading the treasury"), in Debian's chromium driven by playwright-core. The upstream
 * here is a small server that speaks the two routes the treasury reads (a V2 token and the wallet balance) with
 * a balance the test sets: the subject is the console, and the balance must be exact.
 */
const hasChromium = existsSync(CHROMIUM);

if (!hasChromium && !process.env.CI) {
  console.warn(`console coverage browser test skipped: no chromium at ${CHROMIUM} (apt-get install -y chromium)`);
}

describe.runIf(!hasChromium && process.env.CI)('console coverage warning in a browser (CI)', () => {
  it('needs chromium', () => {
    expect.fail(`chromium is missing at ${CHROMIUM}: .ci/run installs it (apt-get install -y chromium)`);
  });
});

/** Payrail's account at the upstream: the token and balance routes, answered in the V2 scheme. */
class UpstreamAccount {
  readonly keys = { apiKey: 'pk_console_coverage_upstream_0001', secretKey: 'sk_console_coverage_upstream_0001' };
  readonly walletId = 'WLCONSOLECOVERAGE0001';
  balance = '100.00';
  url = '';
  private server: Server | null = null;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const path = (req.url ?? '/').split('?')[0];
        const send = (body: unknown) =>
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        if (req.method === 'POST' && path === '/v1/auth/client-token') {
          send({
            respCode: 2000,
            respMessage: 'Token generated',
            data: encryptJson({ token: 'upstream-token' }, 'v2', this.keys),
            expiresIn: 3600,
          });
        } else if (req.method === 'GET' && path === '/payout/v1/balance') {
          const data = {
            wallet_id: this.walletId,
            balance: this.balance,
            available_balance: this.balance,
            currency: 'INR',
          };
          send({
            resp_code: 2000,
            resp_message: 'Balance fetched successfully',
            data: encryptJson(data, 'v2', this.keys),
          });
        } else {
          res.writeHead(404, { 'content-type': 'application/json' }).end('{"resp_code":4103}');
        }
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

describe.runIf(hasChromium)('console overview: treasury coverage below 1 warns', () => {
  const clock = movableClock();
  let upstream: UpstreamAccount;
  let t: TestServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    upstream = await new UpstreamAccount().start();
    t = await startTestServer('pglite', {
      clock,
      env: {
        PAYRAIL_CONNECTOR: 'upstream',
        PAYRAIL_UPSTREAM_URL: upstream.url,
        PAYRAIL_UPSTREAM_API_KEY: upstream.keys.apiKey,
        PAYRAIL_UPSTREAM_SECRET_KEY: upstream.keys.secretKey,
        PAYRAIL_UPSTREAM_WALLET_ID: upstream.walletId,
      },
    });
    // Merchants hold 1,000.00; the upstream account has 100.00: coverage 0.1000.
    await createMerchant(t.url, 'Covered Shop', '1000.00');
    await createOperator(t.url, 'treasurer@example.com', 'admin');
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${t.url}/console`);
    await page.getByLabel('E-mail address').fill('treasurer@example.com');
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await upstream?.stop();
  });

  it('shows the warning with the balance, what is owed and the coverage', async () => {
    const warning = page.getByTestId('coverage-warning');
    await warning.waitFor();
    const text = await warning.innerText();
    expect(text).toMatch(/upstream account does not cover what merchants hold/);
    expect(text).toContain('balance ₹100.00 for ₹1,000.00 owed (coverage 0.1000)');
    const card = await page.getByTestId('connectors').innerText();
    expect(card).toMatch(/upstream\s+IMPS, NEFT, RTGS/);
    await page.screenshot({ path: join(ARTIFACTS, 'overview-coverage-warning.png'), fullPage: true });
    expect(pageErrors).toEqual([]);
  });

  it('shows no warning once the upstream account covers what is owed', async () => {
    upstream.balance = '5000.00';
    // The treasury reads the balance at most every 30 s: the clock moves instead of the test waiting.
    clock.advance(31_000);
    await page.reload();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const card = page.getByTestId('connectors');
    await card.getByText('5.0000').waitFor();
    expect(await page.getByTestId('coverage-warning').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
