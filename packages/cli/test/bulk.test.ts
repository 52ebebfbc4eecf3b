import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Payrail } from '@payrail/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunkBatchId } from '../src/bulk.ts';
import { parseCsv } from '../src/csv.ts';
import { admin, cli, createMerchant, startTestServer, type TestMerchant, type TestServer } from './support.ts';

let t: TestServer;
let dir: string;
beforeAll(async () => {
  t = await startTestServer('pglite');
  dir = await mkdtemp(join(tmpdir(), 'payrail-bulk-'));
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

const envFor = (m: TestMerchant) => ({
  PAYRAIL_URL: t.url,
  PAYRAIL_API_KEY: m.api_key,
  PAYRAIL_SECRET_KEY: m.secret_key,
});

async function results(path: string) {
  const [header, ...rows] = parseCsv(await readFile(path, 'utf8'));
  const names = header?.fields ?? [];
  return rows.map(({ fields }) => Object.fromEntries(names.map((n, i) => [n, fields[i] ?? ''])));
}

async function payoutsOf(merchantId: string) {
  const page = await admin(t.url, 'GET', `/admin/v1/payouts?merchant_id=${merchantId}&limit=200`);
  return page.body.data as { sender_id: string; amount: string }[];
}

describe('payout send --file', () => {
  it('sends every row with a progress bar, writes the result file and exits 9 when some rows fail', async () => {
    const m = await createMerchant(t.url, 'Bulk one', '1000.00');
    const file = join(dir, 'payouts.csv');
    await writeFile(
      file,
      [
        'sender_id,amount,beneficiary_name,account_number,ifsc,payment_mode,remarks',
        'b1-1,10.00,Asha Rao,100000000001,SBOX0000001,IMPS,"rent, ""March"""',
        'b1-2,20,Ravi Kumar,100000000001,SBOX0000001,NEFT,',
        `b1-3,30.50,"Meera O'Brien",100000000001,SBOX0000001,,`,
        'b1-4,5,Bad Ifsc,100000000001,NOPE,IMPS,',
        ',5,No Sender,100000000001,SBOX0000001,IMPS,',
        'b1-6,1,Bank Down,100000000001,DOWN0000001,IMPS,',
      ].join('\n'),
    );
    const run = await cli(
      ['payout', 'send', '--file', file, '--wallet', m.wallet_id, '--progress', '--json'],
      envFor(m),
    );
    expect(run.code).toBe(9);
    expect(run.json).toMatchObject({ rows: 6, sent: 3, rejected: 2, errors: 1, skipped: 0, notSent: 3 });
    expect(run.stderr).toMatch(/\[#+\] 6\/6 100%/);
    const out = await results(join(dir, 'payouts.results.csv'));
    const bySender = Object.fromEntries(out.map((r) => [r.sender_id || `line${r.line}`, r]));
    expect(bySender['b1-1']).toMatchObject({ outcome: 'sent', status: 'INITIATED', amount: '10.00' });
    expect(bySender['b1-1']?.transaction_id).toMatch(/^PT/);
    expect(bySender['b1-3']).toMatchObject({ outcome: 'sent', amount: '30.50' });
    expect(bySender['b1-4']).toMatchObject({ outcome: 'rejected', code: '4007' });
    expect(bySender.line6).toMatchObject({ outcome: 'rejected', code: 'INVALID_ROW' });
    expect(bySender['b1-6']).toMatchObject({ outcome: 'error', code: '4014' });
    const made = await payoutsOf(m.merchant_id);
    expect(made.map((p) => p.sender_id).sort()).toEqual(['b1-1', 'b1-2', 'b1-3']);
    const first = await admin(t.url, 'GET', `/admin/v1/payouts/${bySender['b1-1']?.transaction_id}`);
    expect(first.body.remarks).toBe('rent, "March"');

    // Again: settled rows are skipped; the temporary error is tried again (and the row without a sender_id re-checked).
    const again = await cli(['payout', 'send', '--file', file, '--wallet', m.wallet_id], envFor(m));
    expect(again.code).toBe(9);
    expect(again.stdout).toMatch(/6 row\(s\): 0 sent, 1 rejected, 1 error\(s\), 4 skipped/);
    expect(await payoutsOf(m.merchant_id)).toHaveLength(3);
  });

  it('resumes without paying anyone twice: a batch whose answer was lost, and a result file cut short', async () => {
    const m = await createMerchant(t.url, 'Bulk resume', '1000.00');
    const rows = Array.from({ length: 60 }, (_, i) => `r-${i + 1},1.00,Asha Rao,100000000001,SBOX0000001`);
    const file = join(dir, 'resume.csv');
    const out = join(dir, 'resume-out.csv');
    const text = ['sender_id,amount,name,account,ifsc', ...rows].join('\n');
    await writeFile(file, text);
    const payrail = new Payrail({ baseUrl: t.url, apiKey: m.api_key, secretKey: m.secret_key });
    const input = (i: number) => ({
      senderId: `r-${i + 1}`,
      walletId: m.wallet_id,
      paymentMode: 'IMPS' as const,
      amount: '1.00',
      beneficiary: { name: 'Asha Rao', accountNumber: '100000000001', ifsc: 'SBOX0000001' },
    });

    // A first run whose bulk request landed but whose answer never reached the result file.
    const hash = createHash('sha256').update(text).digest('hex').slice(0, 12);
    const landed = await payrail.payouts.bulk({
      batchId: chunkBatchId(hash, 0, 0),
      items: rows.map((_, i) => input(i)),
    });
    expect(landed.summary.accepted).toBe(60);

    // The rerun sends the same batch_id: it gets that batch back (4009) and records it; nothing is paid twice.
    const args = ['payout', 'send', '--file', file, '--out', out, '--wallet', m.wallet_id, '--json'];
    const second = await cli(args, envFor(m));
    expect(second.code).toBe(0);
    expect(second.json).toMatchObject({ rows: 60, sent: 60, skipped: 0, notSent: 0, interrupted: false });
    const all = await results(out);
    expect(all.map((r) => r.transaction_id)).toEqual(landed.items.map((i) => i.transactionId));
    expect(all.every((r) => r.batch_id === chunkBatchId(hash, 0, 0))).toBe(true);
    expect(await payoutsOf(m.merchant_id)).toHaveLength(60);

    // A result file cut short (a crash while writing it): the rows it lacks go in a new batch (-r1); their
    // sender_ids are taken by the payouts made before (4009), which are found and recorded as sent.
    const lines = (await readFile(out, 'utf8')).split('\n');
    await writeFile(out, `${lines.slice(0, 21).join('\n')}\n`);
    const third = await cli(args, envFor(m));
    expect(third.code).toBe(0);
    expect(third.json).toMatchObject({ rows: 60, sent: 40, skipped: 20, notSent: 0 });
    const after = await results(out);
    const sent = new Map(after.filter((r) => r.outcome === 'sent').map((r) => [r.sender_id, r.transaction_id]));
    expect(sent.size).toBe(60);
    expect(after.slice(20).every((r) => r.batch_id === chunkBatchId(hash, 0, 1))).toBe(true);
    for (const item of landed.items) expect(sent.get(item.senderId)).toBe(item.transactionId);
    const payouts = await payoutsOf(m.merchant_id);
    expect(payouts).toHaveLength(60);
    expect((await payrail.wallets.balance(m.wallet_id)).balance).toBe('940.00');
  });

  it("--dry-run prints every row's verdict and sends nothing", async () => {
    const m = await createMerchant(t.url, 'Bulk dry', '15.00');
    const file = join(dir, 'dry.csv');
    await writeFile(
      file,
      [
        'sender_id,amount,beneficiary_name,account_number,ifsc',
        'd-1,10.00,Asha Rao,100000000001,SBOX0000001',
        'd-2,10.00,Ravi Kumar,100000000001,SBOX0000001',
        'd-3,5.00,Meera Iyer,100000000001,NOPE',
        ',1,No Sender,100000000001,SBOX0000001',
        'd-5,5.00,Meera Iyer,100000000001,SBOX0000001',
      ].join('\n'),
    );
    const run = await cli(['payout', 'send', '--file', file, '--wallet', m.wallet_id, '--dry-run'], envFor(m));
    expect(run.code).toBe(9);
    expect(run.stdout).toMatch(/line 2 {2}d-1 {2}OK {4}would be sent/);
    expect(run.stdout).toMatch(/line 3 {2}d-2 {2}4002/);
    expect(run.stdout).toMatch(/line 4 {2}d-3 {2}4007/);
    expect(run.stdout).toMatch(/line 5 {2}\(no sender_id\) {2}INVALID_ROW/);
    expect(run.stdout).toMatch(/line 6 {2}d-5 {2}OK/);
    expect(run.stdout).toMatch(/2 row\(s\) would be sent, 3 would not\. Nothing was sent\./);
    expect(await payoutsOf(m.merchant_id)).toHaveLength(0);
    const json = await cli(
      ['payout', 'send', '--file', file, '--wallet', m.wallet_id, '--dry-run', '--json'],
      envFor(m),
    );
    expect(json.json).toMatchObject({ dryRun: true, rows: 5, pass: 2, failing: 3 });
  });

  it(
    '--wait records final statuses in the result file; bulk status shows a batch; exit 7 on a refund, 8 on a timeout',
    { timeout: 120_000 },
    async () => {
      const m = await createMerchant(t.url, 'Bulk wait', '100.00');
      const file = join(dir, 'wait.csv');
      await writeFile(
        file,
        [
          'sender_id,amount,beneficiary_name,account_number,ifsc',
          'w-1,10.00,Asha Rao,100000000001,SBOX0000001',
          'w-2,20.00,Ravi Kumar,100000000001,SBOX0000001',
          'w-3,5.00,Meera Iyer,100000000002,SBOX0000001', // the sandbox fails it, then refunds it
        ].join('\n'),
      );
      // --concurrency is still accepted (old scripts) but says it does nothing; it is gone from --help.
      const run = await cli(
        ['payout', 'send', '--file', file, '--wallet', m.wallet_id, '--wait', '--timeout', '60', '--concurrency', '8'],
        envFor(m),
      );
      expect(run.code).toBe(7);
      expect(run.stderr).toContain('--concurrency has no effect');
      expect(run.stderr).toMatch(/Waiting up to 60 s for 3 payout\(s\) in 1 batch\(es\) to be final/);
      expect(run.stdout).toContain('Final statuses: SUCCESS 2, REFUNDED 1 (recorded in the result file).');
      const out = await results(join(dir, 'wait.results.csv'));
      expect(out.map((r) => [r.sender_id, r.outcome, r.status])).toEqual([
        ['w-1', 'sent', 'SUCCESS'],
        ['w-2', 'sent', 'SUCCESS'],
        ['w-3', 'sent', 'REFUNDED'],
      ]);
      const batchId = out[0]?.batch_id as string;

      const [status, human] = await Promise.all([
        cli(['bulk', 'status', '--batch-id', batchId, '--json'], envFor(m)),
        cli(['bulk', 'status', '--batch-id', batchId], envFor(m)),
      ]);
      expect(status.code).toBe(0);
      expect(status.json).toMatchObject({
        batchId,
        summary: { items: 3, accepted: 3, byStatus: { SUCCESS: 2, REFUNDED: 1 } },
      });
      expect(status.json.completedAt).not.toBeNull();
      expect(status.json.items.map((i: { senderId: string; status: string }) => [i.senderId, i.status])).toEqual([
        ['w-1', 'SUCCESS'],
        ['w-2', 'SUCCESS'],
        ['w-3', 'REFUNDED'],
      ]);
      expect(human.stdout).toMatch(/Payouts:\s+SUCCESS 2, REFUNDED 1/);
      expect(human.stdout).toMatch(/#\s+SENDER ID\s+TRANSACTION ID\s+STATUS\s+UTR\s+MESSAGE/);

      // Again with --json: every row is skipped, the statuses are read again; the JSON summary has them.
      const again = await cli(
        ['payout', 'send', '--file', file, '--wallet', m.wallet_id, '--wait', '--json'],
        envFor(m),
      );
      expect(again.code).toBe(7);
      expect(again.json).toMatchObject({ skipped: 3, sent: 0, final: { SUCCESS: 2, REFUNDED: 1 }, timedOut: false });

      // A payout that stays PENDING: exit 8 when the time is up, with the status it had recorded.
      const pending = join(dir, 'pending.csv');
      await writeFile(pending, 'sender_id,amount,name,account,ifsc\nw-4,1.00,Meera Iyer,100000000003,SBOX0000001\n');
      const timeout = await cli(
        ['payout', 'send', '--file', pending, '--wallet', m.wallet_id, '--wait', '--timeout', '2', '--json'],
        envFor(m),
      );
      expect(timeout.code).toBe(8);
      expect(timeout.json).toMatchObject({ sent: 1, timedOut: true, final: { PENDING: 1 } });
      expect((await results(join(dir, 'pending.results.csv')))[0]).toMatchObject({
        sender_id: 'w-4',
        status: 'PENDING',
      });

      const help = await cli(['payout', 'send', '--help']);
      const text = help.stdout.replace(/\s+/g, ' '); // as wrapped for the terminal's width
      expect(text).not.toContain('--concurrency');
      expect(text).toContain('send nothing (exit 9: some would fail)');
      expect(text).toContain('exit 0 when every row would be sent, 9 when at least one would not');
    },
  );

  it('refuses unusable files with exit 2', async () => {
    const m = await createMerchant(t.url, 'Bulk bad');
    const noColumn = join(dir, 'nocol.csv');
    const noWallet = join(dir, 'nowallet.csv');
    await writeFile(noColumn, 'sender_id,amount\nx,1\n');
    await writeFile(noWallet, 'sender_id,amount,name,account,ifsc\nx,1,A B,100000000001,SBOX0000001\n');
    const [a, b, c] = await Promise.all([
      cli(['payout', 'send', '--file', noColumn, '--wallet', m.wallet_id], envFor(m)),
      cli(['payout', 'send', '--file', noWallet], envFor(m)),
      cli(['payout', 'send', '--file', join(dir, 'missing.csv'), '--wallet', m.wallet_id], envFor(m)),
    ]);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('beneficiary_name');
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('--wallet');
    expect(c.code).toBe(2);
  });
});
