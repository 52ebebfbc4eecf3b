import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { camt053, mt940 } from '../../server/test/support/bankStatements.ts';
import { statementContentType } from '../src/commands/operator/recon.ts';
import { cli, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from './support.ts';

let t: TestServer;
let dir: string;
let env: Record<string, string>;
beforeAll(async () => {
  [t, dir] = await Promise.all([startTestServer('pglite'), mkdtemp(join(tmpdir(), 'payrail-recon-cli-'))]);
  env = { PAYRAIL_URL: t.url, PAYRAIL_ADMIN_TOKEN: TEST_ADMIN_TOKEN };
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

const op = (...args: string[]) => cli(args, env);
const file = async (name: string, text: string) => {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
};

describe('payrail recon', () => {
  let runId: string;

  it('import sends camt.053 as XML and MT940 as text; the same file again changes nothing', async () => {
    const camt = await file(
      'statement.xml',
      camt053({ date: '2026-04-01', entries: [{ direction: 'debit', amount: '42.00', utr: '123456789012' }] }),
    );
    const first = await op('recon', 'import', camt, '--json');
    expect(first.code, first.stderr).toBe(0);
    const [run] = first.json.runs;
    expect(run).toMatchObject({
      already_imported: false,
      transactions: 1,
      open_exceptions: 1,
      results: { unmatched: { count: 1, amount: '42.00' } },
    });
    runId = run.run_id;
    const again = await op('recon', 'import', camt);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`Run:              ${runId}`);
    expect(again.stdout).toContain('already imported: nothing changed');
    expect(again.stdout).toMatch(/unmatched\s+1\s+42\.00/);

    const text = await file('statement.sta', mt940({ date: '2026-04-02', entries: [] }));
    const viaText = await op('recon', 'import', text, '--json');
    expect(viaText.code, viaText.stderr).toBe(0);
    expect(viaText.json.runs[0].statement).toMatchObject({ format: 'mt940', version: 'MT940' });
  });

  it('report shows a run with its exceptions and exits 7 while any is open; --csv prints every item', async () => {
    const report = await op('recon', 'report', '--run', runId);
    expect(report.code).toBe(7);
    expect(report.stdout).toContain('Open exceptions:  1');
    expect(report.stdout).toMatch(/ITEM\s+RESULT\s+STATE/);
    expect(report.stdout).toMatch(/unmatched\s+open\s+1\.1\s+debit\s+42\.00/);
    const csv = await op('recon', 'report', '--run', runId, '--csv');
    expect(csv.code).toBe(0);
    const lines = csv.stdout.trimEnd().split('\r\n');
    expect(lines[0]).toMatch(/^item_id,result,state,/);
    expect(lines[1]).toContain(',unmatched,open,1,1,debit,42.00,INR,');
    // Without --run: the newest run (the MT940 one, no transactions, nothing open).
    const newest = await op('recon', 'report');
    expect(newest.code).toBe(0);
    expect(newest.stdout).toContain('No exceptions: every transaction matched.');
    const runs = await op('recon', 'runs', '--json');
    expect(runs.json.data.map((r: { run_id: string }) => r.run_id)).toContain(runId);
  });

  it('a statement that does not add up is rejected (exit 4) naming the difference; a missing file is exit 1', async () => {
    const bad = await file('bad.xml', camt053({ date: '2026-04-03', opening: '10.00', closing: '11.00', entries: [] }));
    const refused = await op('recon', 'import', bad, '--json');
    expect(refused.code).toBe(4);
    expect(refused.errJson.error).toMatchObject({
      code: 'statement_unbalanced',
      message: expect.stringContaining('opening 10.00 + credits 0.00 − debits 0.00 = 10.00, closing says 11.00'),
    });
    const missing = await op('recon', 'import', join(dir, 'nope.xml'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('cannot read');
    expect((await op('recon', 'report', '--run', 'RR00000000000000000000000000')).code).toBe(5);
  });

  it('tells XML from text by the first characters', () => {
    expect(statementContentType(Buffer.from('\uFEFF\n  <?xml version="1.0"?>'))).toBe('application/xml');
    expect(statementContentType(Buffer.from(':20:STMT'))).toBe('text/plain');
  });
});
