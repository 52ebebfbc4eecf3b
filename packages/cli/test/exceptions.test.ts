import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { camt053 } from '../../server/test/support/bankStatements.ts';
import { refusedPspReport } from '../../server/test/support/refusedReport.ts';
import { fixedClock } from '../../server/test/support/testClock.ts';
import { cli, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from './support.ts';

const SECRET = `psp_${randomBytes(24).toString('hex')}`;
const DAY = 24 * 3_600_000;
/** 2026-05-01 10:00 IST: the server's clock stands here, and moves only when the test moves it. */
const START = Date.UTC(2026, 4, 1, 4, 30);

let t: TestServer;
let dir: string;
let env: Record<string, string>;
const clock = fixedClock(START);
/** Oldest first: the two entries of a statement Payrail does not know (1 May), then a refused report (3 May). */
let credit: string;
let debit: string;
let refused: string;
let runId: string;
let merchantId: string;
let walletId: string;
let payoutId: string;

const op = (...args: string[]) => cli(args, env);

beforeAll(async () => {
  [t, dir] = await Promise.all([
    startTestServer('pglite', { env: { PAYRAIL_PSP_NOTIFY_SECRET: SECRET }, clock }),
    mkdtemp(join(tmpdir(), 'payrail-exceptions-cli-')),
  ]);
  env = { PAYRAIL_URL: t.url, PAYRAIL_ADMIN_TOKEN: TEST_ADMIN_TOKEN };
  const statement = join(dir, 'statement.xml');
  await writeFile(
    statement,
    camt053({
      date: '2026-04-30',
      entries: [
        { direction: 'credit', amount: '10.00', remittance: 'Unknown sender' },
        { direction: 'debit', amount: '42.00', utr: '400000000001' },
      ],
    }),
  );
  const imported = await op('recon', 'import', statement, '--json');
  expect(imported.code, imported.stderr).toBe(0);
  runId = imported.json.runs[0].run_id;

  // Two days later a PSP reports a sandbox payout paid: only manual payouts take notifications, so it is refused.
  clock.advance(2 * DAY);
  const report = await refusedPspReport(t.url, SECRET, clock(), 'UTR0000CLI');
  merchantId = report.funded.merchant.merchant_id;
  walletId = report.funded.merchant.wallet_id;
  payoutId = report.payoutId;
  refused = report.exceptionId;

  const all = await op('exceptions', 'list', '--json');
  expect(all.code, all.stderr).toBe(0);
  [credit, debit] = all.json.data
    .filter((e: { kind: string }) => e.kind === 'unmatched')
    .map((e: { exception_id: string }) => e.exception_id);
}, 60_000);

afterAll(async () => {
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const idsOf = (json: { data: { exception_id: string }[] }) => json.data.map((e) => e.exception_id);

describe('payrail exceptions list', () => {
  it('prints the queue oldest first with the amount at stake, the payout or merchant, the source and the reason', async () => {
    const r = await op('exceptions', 'list');
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^EXCEPTION\s+KIND\s+STATE\s+AMOUNT\s+PAYOUT\/MERCHANT\s+SOURCE\s+CREATED\s+REASON$/);
    expect(lines).toHaveLength(4);
    expect(lines[1]).toMatch(
      new RegExp(`^${credit}\\s+unmatched\\s+open\\s+10\\.00\\s+-\\s+reconciliation\\s+2026-05-01T04:30:00\\.000Z\\s+`),
    );
    expect(lines[2]).toMatch(new RegExp(`^${debit}\\s+unmatched\\s+open\\s+42\\.00\\s+`));
    expect(lines[3]).toMatch(
      new RegExp(
        `^${refused}\\s+report_refused\\s+open\\s+150\\.25\\s+${payoutId}\\s+psp_notify\\s+2026-05-03T04:30:00`,
      ),
    );
    expect(lines[3]).toContain('a report from the manual connector about payout');
  });

  it('filters by state, kind, merchant and IST days, and pages with --limit, --cursor and --all', async () => {
    const [unmatched, ofMerchant, since, until, both, none] = await Promise.all([
      op('exceptions', 'list', '--state', 'open', '--kind', 'unmatched', '--json'),
      op('exceptions', 'list', '--merchant', merchantId, '--json'),
      op('exceptions', 'list', '--from', '2026-05-03', '--json'),
      op('exceptions', 'list', '--to', '2026-05-02', '--json'),
      op('exceptions', 'list', '--from', '2026-05-01', '--to', '2026-05-03', '--json'),
      op('exceptions', 'list', '--state', 'resolved'),
    ]);
    expect(idsOf(unmatched.json)).toEqual([credit, debit]);
    expect(idsOf(ofMerchant.json)).toEqual([refused]);
    expect(ofMerchant.json.data[0]).toMatchObject({
      kind: 'report_refused',
      amount: '150.25',
      payout_id: payoutId,
      merchant_id: merchantId,
      allowed_actions: ['apply_as_reported', 'dismiss'],
    });
    expect(idsOf(since.json)).toEqual([refused]);
    expect(idsOf(until.json)).toEqual([credit, debit]);
    expect(idsOf(both.json)).toEqual([credit, debit, refused]);
    expect([none.code, none.stdout]).toEqual([0, 'No exceptions.\n']);

    const first = await op('exceptions', 'list', '--limit', '1');
    expect(first.code).toBe(0);
    const cursor = /\(more: --cursor (\S+), or --all\)/.exec(first.stdout)?.[1] as string;
    expect(cursor).toBeTruthy();
    expect(first.stdout).toContain(credit);
    const next = await op('exceptions', 'list', '--limit', '1', '--cursor', cursor, '--json');
    expect(idsOf(next.json)).toEqual([debit]);
    const every = await op('exceptions', 'list', '--limit', '1', '--all', '--json');
    expect(every.json).toMatchObject({ has_more: false, next_cursor: null });
    expect(idsOf(every.json)).toEqual([credit, debit, refused]);
  });

  it('--csv prints every matching exception as CSV; paging options do not go with it', async () => {
    const csv = await op('exceptions', 'list', '--csv', '--kind', 'unmatched');
    expect(csv.code, csv.stderr).toBe(0);
    const lines = csv.stdout.trimEnd().split(/\r?\n/);
    expect(lines[0]).toMatch(
      /^exception_id,kind,state,source,source_ref,merchant_id,payout_id,wallet_id,amount,reason,/,
    );
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual([credit, debit]);
    expect(lines[2]).toContain(`${debit},unmatched,open,reconciliation,${runId},,,,42.00,`);
    const paged = await op('exceptions', 'list', '--csv', '--limit', '5', '--json');
    expect(paged.code).toBe(2);
    expect(paged.errJson.error).toMatchObject({ type: 'UsageError', exitCode: 2 });
    expect(paged.errJson.error.message).toContain('--csv exports every matching exception');
  });

  it('refuses a state, kind or day it does not know as a usage error (exit 2), before calling the server', async () => {
    const results = await Promise.all([
      op('exceptions', 'list', '--state', 'closed'),
      op('exceptions', 'list', '--kind', 'nonsense'),
      op('exceptions', 'list', '--from', '1-5-2026'),
      op('exceptions', 'list', '--to', '2026-05-01', '--json'),
    ]);
    expect(results.map((r) => r.code)).toEqual([2, 2, 2, 0]);
    expect(results[0]?.stderr).toContain('Allowed choices are open, resolved');
    expect(results[2]?.stderr).toContain('expected an IST day like 2026-05-04');
    const refusedToken = await cli(['exceptions', 'list'], {
      PAYRAIL_URL: t.url,
      PAYRAIL_ADMIN_TOKEN: 'not-the-token',
    });
    expect(refusedToken.code).toBe(3);
  });
});

describe('payrail exceptions show and resolve', () => {
  it('show prints what was reported beside what Payrail holds, and the actions the exception allows', async () => {
    const r = await op('exceptions', 'show', refused);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Kind:\s+report_refused/);
    expect(r.stdout).toMatch(/Amount at stake:\s+150\.25/);
    expect(r.stdout).toMatch(/Allowed actions:\s+apply_as_reported, dismiss/);
    expect(r.stdout).toMatch(/FIELD\s+REPORTED\s+HELD\s+DIFFERS/);
    expect(r.stdout).toMatch(/status\s+SUCCESS\s+(INITIATED|PROCESSING|PENDING)\s+yes/);
    expect(r.stdout).toMatch(/utr\s+UTR0000CLI\s+-\s+-/);
    expect(r.stdout).toMatch(/amount\s+-\s+150\.25\s+-/);
    expect((await op('exceptions', 'show', 'EX00000000000000000000000000')).code).toBe(5);
  });

  it('resolve dismisses an open exception once with a reason (its reconciliation item closes with it)', async () => {
    const r = await op(
      'exceptions',
      'resolve',
      debit,
      '--action',
      'dismiss',
      '--reason',
      '  Bank charge, booked by hand ',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/State:\s+resolved/);
    expect(r.stdout).toMatch(
      /Resolution:\s+dismiss by operator:admin-token at 2026-05-03T04:30:00\.000Z: Bank charge, booked by hand\n/,
    );
    expect(r.stdout.trimEnd().endsWith('Resolved: dismiss.')).toBe(true);

    const shown = await op('exceptions', 'show', debit, '--json');
    expect(shown.json).toMatchObject({
      state: 'resolved',
      allowed_actions: [],
      resolution: { action: 'dismiss', reason: 'Bank charge, booked by hand', by: 'operator:admin-token' },
    });
    const report = await op('recon', 'report', '--run', runId, '--json');
    expect(report.json.open_exceptions).toBe(1);

    // Once only: the same again is refused (exit 4), and nothing changes.
    const again = await op('exceptions', 'resolve', debit, '--action', 'dismiss', '--reason', 'again', '--json');
    expect(again.code).toBe(4);
    expect(again.errJson.error).toMatchObject({ code: 'already_resolved', exitCode: 4 });
    expect((await op('exceptions', 'list', '--state', 'open', '--json')).json.data).toHaveLength(2);
  });

  it('refuses an action the exception does not allow (exit 4, naming the allowed ones) and an unknown one (exit 5)', async () => {
    const notAllowed = await op(
      'exceptions',
      'resolve',
      credit,
      '--action',
      'refund_in_full',
      '--reason',
      'x',
      '--json',
    );
    expect(notAllowed.code).toBe(4);
    expect(notAllowed.errJson.error).toMatchObject({
      code: 'action_not_allowed',
      message: 'This exception allows dismiss, not refund_in_full',
    });
    const unknown = await op(
      'exceptions',
      'resolve',
      'EX00000000000000000000000000',
      '--action',
      'dismiss',
      '--reason',
      'x',
    );
    expect(unknown.code).toBe(5);
    expect((await op('exceptions', 'show', credit, '--json')).json.state).toBe('open');
  });

  it('checks its arguments before calling: an action it does not know, no reason, a blank reason (exit 2)', async () => {
    const results = await Promise.all([
      op('exceptions', 'resolve', credit, '--action', 'forgive', '--reason', 'x'),
      op('exceptions', 'resolve', credit, '--action', 'dismiss'),
      op('exceptions', 'resolve', credit, '--action', 'dismiss', '--reason', '   ', '--json'),
      op('exceptions', 'resolve', credit, '--reason', 'x'),
    ]);
    expect(results.map((r) => r.code)).toEqual([2, 2, 2, 2]);
    expect(results[2]?.errJson.error.message).toContain('say why the exception is resolved this way');
    expect((await op('exceptions', 'show', credit, '--json')).json.state).toBe('open');
  });

  it('resolves a deposit credited nowhere: assign_to_wallet with --wallet, return_to_sender naming its payout', async () => {
    const stray = async (utr: string) => {
      const res = await fetch(`${t.url}/admin/v1/sandbox/deposits`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          virtual_account: '12345',
          amount: '15.00',
          utr,
          remitter_name: 'Asha Traders',
          remitter_account: '100000000001',
          remitter_ifsc: 'SBOX0000001',
        }),
      });
      expect(res.status).toBe(202);
      return ((await res.json()) as { exception_id: string }).exception_id;
    };
    const [assignId, returnId] = await Promise.all([stray('UTRCLIASSIGN1'), stray('UTRCLIRETURN1')]);
    const assigned = await op(
      'exceptions',
      'resolve',
      assignId,
      '--action',
      'assign_to_wallet',
      '--wallet',
      walletId,
      '--reason',
      'merchant sent the proof',
    );
    expect(assigned.code, assigned.stderr).toBe(0);
    expect(assigned.stdout).toContain('Resolved: assign_to_wallet.');
    const returned = await op(
      'exceptions',
      'resolve',
      returnId,
      '--action',
      'return_to_sender',
      '--reason',
      'unclaimed',
    );
    expect(returned.code, returned.stderr).toBe(0);
    expect(returned.stdout).toMatch(/Return payout:\s+PT[0-9A-Z]{26}/);
    expect(returned.stdout).toMatch(/The return is payout PT[0-9A-Z]{26}\./);
  });

  it('has help with examples', async () => {
    const [list, resolve] = await Promise.all([
      op('exceptions', 'list', '--help'),
      op('exceptions', 'resolve', '--help'),
    ]);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('payrail exceptions list --state open');
    expect(list.stdout).toContain('unknown_virtual_account');
    expect(resolve.code).toBe(0);
    expect(resolve.stdout).toContain('--action <action>');
    expect(resolve.stdout).toContain('payrail exceptions resolve EX01… --action dismiss --reason');
    expect(resolve.stdout).toContain('--action return_to_sender');
  });
});
