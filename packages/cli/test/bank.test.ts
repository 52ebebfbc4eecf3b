import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePain001 } from '../../server/src/rails/bankfile/pain001.ts';
import { BANKFILE_ENV } from '../../server/test/support/bankFiles.ts';
import { admin, cli, createMerchant, startTestServer, type TestServer } from './support.ts';

describe('payrail bank simulate', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it('answers each pain.001 once with a pain.002 and a camt.054 (--once), and says which it could not read', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'payrail-sim-'));
    dirs.push(dir);
    await mkdir(join(dir, 'outbox'), { recursive: true });
    const xml = writePain001({
      msgId: 'PR01JSIMULATED000000000000AB',
      createdAt: new Date(),
      executionDate: '2026-11-26',
      debtor: { name: 'Acme', account: '50100012345678', ifsc: 'HDFC0000123', initiatingParty: 'Acme' },
      payments: [
        {
          payoutId: 'PT01JSIMULATED000000000000A1',
          amount: 10_000n,
          paymentMode: 'IMPS',
          beneficiaryName: 'Asha Rao',
          accountNumber: '100000000001',
          ifsc: 'SBOX0000001',
          remarks: '',
        },
        {
          payoutId: 'PT01JSIMULATED000000000000A2',
          amount: 20_000n,
          paymentMode: 'NEFT',
          beneficiaryName: 'Ravi',
          accountNumber: '100000000002',
          ifsc: 'SBOX0000001',
          remarks: '',
        },
      ],
    });
    await writeFile(join(dir, 'outbox', 'PAYRAIL-PR01JSIMULATED000000000000AB.xml'), xml);
    await writeFile(join(dir, 'outbox', 'PAYRAIL-BROKEN.xml'), 'not xml at all');
    const first = await cli(['bank', 'simulate', '--dir', dir, '--once', '--statement']);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('PAYRAIL-BROKEN.xml: not answered');
    expect(first.stdout).toContain('1 paid, 1 rejected (AC01), 0 pending');
    expect((await readdir(join(dir, 'inbox'))).sort()).toEqual([
      'CAMT053-PR01JSIMULATED000000000000AB.xml',
      'CAMT054-PR01JSIMULATED000000000000AB.xml',
      'PAIN002-PR01JSIMULATED000000000000AB.xml',
    ]);
    const again = await cli(['bank', 'simulate', '--dir', dir, '--once', '--json']);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('');
  });

  it('needs --dir', async () => {
    const r = await cli(['bank', 'simulate', '--once']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('--dir');
  });
});

describe('payrail bank simulate deposit', () => {
  let t: TestServer;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'payrail-simdep-'));
    // The server's own inbox reads the folder (every 200 ms), as it would the bank's.
    t = await startTestServer('pglite', { env: { ...BANKFILE_ENV, PAYRAIL_BANKFILE_DIR: dir } });
  });
  afterAll(async () => {
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('writes a camt.054 credit to the virtual account that the inbox credits once', async () => {
    const m = await createMerchant(t.url, 'Simulated deposit');
    const wallet = await admin(t.url, 'GET', `/admin/v1/wallets/${m.wallet_id}`);
    const va = (wallet.body.virtual_account as { number: string }).number;
    const r = await cli([
      'bank',
      'simulate',
      'deposit',
      '--dir',
      dir,
      '--virtual-account',
      va,
      '--amount',
      '2500.5',
      '--utr',
      'SIMUTR000123',
      '--remitter-name',
      'Asha Traders',
      '--remitter-account',
      '50100012345678',
      '--remitter-ifsc',
      'hdfc0000123',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toEqual({
      file: 'CAMT054-DEP-SIMUTR000123.xml',
      utr: 'SIMUTR000123',
      amount: '2500.50',
      virtual_account: va,
    });
    const deposit = async () =>
      (await t.db.query<Record<string, unknown>>('SELECT * FROM deposits WHERE utr = $1', ['SIMUTR000123'])).rows;
    for (let i = 0; i < 100 && (await deposit()).length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await deposit()).toMatchObject([
      {
        wallet_id: m.wallet_id,
        amount: 250_050n,
        source: 'bank_file',
        remitter_name: 'Asha Traders',
        remitter_account: '50100012345678',
        remitter_ifsc: 'HDFC0000123',
      },
    ]);
    // The same transfer written again (same UTR): the inbox applies the file and credits nothing more.
    expect(
      (
        await cli([
          'bank',
          'simulate',
          'deposit',
          '--dir',
          dir,
          '--virtual-account',
          va,
          '--amount',
          '2500.50',
          '--utr',
          'SIMUTR000123',
        ])
      ).code,
    ).toBe(0);
    for (let i = 0; i < 100 && (await readdir(join(dir, 'inbox'))).length > 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await deposit()).toHaveLength(1);
    const view = await admin(t.url, 'GET', `/admin/v1/merchants/${m.merchant_id}`);
    expect((view.body.wallets as { wallet_id: string; balance: string }[])[0]?.balance).toBe('2500.50');
  });

  it('refuses a bad amount or account with a usage error and writes nothing', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'payrail-simdep-bad-'));
    for (const args of [
      ['--virtual-account', '998800000000017', '--amount', '12.345'],
      ['--virtual-account', '998800000000017', '--amount', '0'],
      ['--virtual-account', '99880000-17', '--amount', '10'],
      ['--virtual-account', '998800000000017', '--amount', '10', '--remitter-ifsc', 'HDFC123'],
    ]) {
      const r = await cli(['bank', 'simulate', 'deposit', '--dir', empty, ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--amount|--virtual-account|--remitter-ifsc/);
    }
    expect(await readdir(empty)).toEqual([]);
    await rm(empty, { recursive: true, force: true });
  });

  it('explains itself in --help', async () => {
    const r = await cli(['bank', 'simulate', 'deposit', '--help']);
    expect(r.code).toBe(0);
    for (const option of [
      '--virtual-account',
      '--amount',
      '--utr',
      '--remitter-name',
      '--remitter-account',
      '--remitter-ifsc',
      '--dir',
    ]) {
      expect(r.stdout).toContain(option);
    }
    expect(r.stdout).toContain('Example');
  });
});
