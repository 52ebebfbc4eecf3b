import { Payrail } from '@payrail/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from './support.ts';

/**
 * Operator lists read by merchant name, and names that repeat are told apart (issue 32): `payrail merchant create`
 * warns when the name is taken, and the payout and collection lists show the name with a short id.
 */
let t: TestServer;
let env: Record<string, string>;
beforeAll(async () => {
  t = await startTestServer('pglite');
  env = { PAYRAIL_URL: t.url, PAYRAIL_ADMIN_TOKEN: TEST_ADMIN_TOKEN };
});
afterAll(() => t?.close());

const op = (...args: string[]) => cli(args, env);

describe('merchant names in the CLI', () => {
  it('merchant create warns of a namesake; payouts list and show name each merchant with its id', async () => {
    const first = await op('merchant', 'create', 'Acme Traders', '--json');
    expect(first.code).toBe(0);
    expect(first.json.warnings).toEqual([]);
    expect(first.stderr).toBe('');
    const [again, againJson] = [
      await op('merchant', 'create', 'Acme Traders'),
      await op('merchant', 'create', 'acme traders', '--json'),
    ];
    // Created either way (exit 0, the credentials on stdout); the warning on stderr, or in the --json result.
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/Secret key:\s+\S{16}/);
    expect(again.stderr).toContain(
      `payrail: warning: another merchant is already named "Acme Traders" (${first.json.merchant_id})`,
    );
    expect(againJson.code).toBe(0);
    // With --json too, on stderr as a JSON line: `--json > acme.json` would otherwise hide it in the file.
    expect(JSON.parse(againJson.stderr)).toEqual({
      warning: expect.objectContaining({
        code: 'duplicate_name',
        message: expect.stringContaining('named "acme traders"'),
      }),
    });
    expect(againJson.json.warnings).toEqual([
      expect.objectContaining({
        code: 'duplicate_name',
        merchant_ids: expect.arrayContaining([first.json.merchant_id]),
      }),
    ]);
    const second = againJson.json as { merchant_id: string; api_key: string; secret_key: string; wallet_id: string };

    const ids = [first.json.merchant_id as string, second.merchant_id];
    for (const [i, m] of [first.json, second].entries()) {
      await op('wallet', 'credit', m.wallet_id, '1000', '--reference', `names-${i}`);
      const payrail = new Payrail({ baseUrl: t.url, apiKey: m.api_key, secretKey: m.secret_key });
      await payrail.payouts.initiate({
        senderId: `names-${i}`,
        walletId: m.wallet_id,
        paymentMode: 'IMPS',
        amount: '10.00',
        beneficiary: { name: 'Asha Rao', accountNumber: '100000000001', ifsc: 'SBOX0000001' },
      });
    }
    const list = await op('payouts', 'list');
    expect(list.code).toBe(0);
    const short = (id: string) => `${id.slice(0, 6)}…${id.slice(-2)}`;
    const rowOf = (senderId: string) => list.stdout.split('\n').find((l) => l.includes(senderId)) ?? '';
    expect(rowOf('names-0')).toContain(`Acme Traders (${short(ids[0] as string)})`);
    expect(rowOf('names-1')).toContain(`acme traders (${short(ids[1] as string)})`);
    expect(list.stdout).not.toContain(ids[0]);

    const json = await op('payouts', 'list', '--json');
    const payout = (json.json.data as { sender_id: string; transaction_id: string; merchant_name: string }[]).find(
      (p) => p.sender_id === 'names-1',
    );
    expect(payout?.merchant_name).toBe('acme traders');
    const show = await op('payouts', 'show', payout?.transaction_id as string);
    expect(show.stdout).toMatch(new RegExp(`Merchant:\\s+acme traders \\(${ids[1]}\\)`));
  }, 180_000);
});
