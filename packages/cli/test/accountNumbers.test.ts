import { Payrail } from '@payrail/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleSession, createOperator } from '../../server/test/support/consoleClient.ts';
import { cli, createMerchant, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from './support.ts';

/**
 * Account numbers by role (issue 32): admin and finance read them in full, a viewer masked to the last four digits,
 * the same in the console, the CLI and CSV files. The operator commands act with the admin token, whose role is admin:
 * they print full numbers, as the admin API answers them to it.
 */
let t: TestServer;
let env: Record<string, string>;
beforeAll(async () => {
  t = await startTestServer('pglite');
  env = { PAYRAIL_URL: t.url, PAYRAIL_ADMIN_TOKEN: TEST_ADMIN_TOKEN };
});
afterAll(() => t?.close());

describe('account numbers in the operator commands', () => {
  it('payouts show prints the beneficiary account in full for the admin token', async () => {
    const m = await createMerchant(t.url, 'Account Traders', '1000.00');
    const payrail = new Payrail({ baseUrl: t.url, apiKey: m.api_key, secretKey: m.secret_key });
    const p = await payrail.payouts.initiate({
      senderId: 'acct-1',
      walletId: m.wallet_id,
      paymentMode: 'IMPS',
      amount: '10.00',
      beneficiary: { name: 'Asha Rao', accountNumber: '123456789012', ifsc: 'SBOX0000001' },
    });
    const [human, json] = await Promise.all([
      cli(['payouts', 'show', p.transactionId], env),
      cli(['payouts', 'show', p.transactionId, '--json'], env),
    ]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/Beneficiary:\s+Asha Rao 123456789012 SBOX0000001/);
    expect(json.json.beneficiary.beneficiary_acc_number).toBe('123456789012');
    // The same payout through the same API for a viewer's console session: masked by the server.
    await createOperator(t.url, 'viewer-cli@example.com', 'viewer');
    const viewer = await ConsoleSession.signIn(t.url, 'viewer-cli@example.com');
    const seen = await viewer.request('GET', `/admin/v1/payouts/${p.transactionId}`);
    expect((seen.body.beneficiary as { beneficiary_acc_number: string }).beneficiary_acc_number).toBe('XXXX9012');
  });
});
