import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writePain001 } from '../../server/src/rails/bankfile/pain001.ts';
import { cli } from './support.ts';

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
